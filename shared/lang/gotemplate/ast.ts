// Parse tree of Go text/template (text/template/parse/node.go), reduced to what execution needs.

export type NumberNode = {
  readonly type: 'number';
  readonly pos: number;
  readonly text: string;
  readonly isInt: boolean;
  readonly isUint: boolean;
  readonly isFloat: boolean;
  readonly int64: bigint;
  readonly uint64: bigint;
  readonly float64: number;
};

export type ArgNode =
  | { readonly type: 'field'; readonly pos: number; readonly idents: readonly string[] }
  | { readonly type: 'variable'; readonly pos: number; readonly idents: readonly string[] }
  | { readonly type: 'chain'; readonly pos: number; readonly node: ArgNode; readonly fields: readonly string[] }
  | { readonly type: 'identifier'; readonly pos: number; readonly name: string }
  | { readonly type: 'dot'; readonly pos: number }
  | { readonly type: 'nil'; readonly pos: number }
  | { readonly type: 'bool'; readonly pos: number; readonly value: boolean }
  | { readonly type: 'string'; readonly pos: number; readonly quoted: string; readonly text: string }
  | NumberNode
  | PipeNode;

export type CommandNode = { readonly type: 'command'; readonly pos: number; readonly args: readonly ArgNode[] };

export type PipeNode = {
  readonly type: 'pipe';
  readonly pos: number;
  readonly isAssign: boolean;
  readonly decl: readonly string[];
  readonly cmds: readonly CommandNode[];
};

export type ListNode = { readonly type: 'list'; readonly nodes: readonly Node[] };

export type Node =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'action'; readonly pos: number; readonly pipe: PipeNode }
  | {
      readonly type: 'if' | 'with' | 'range';
      readonly pos: number;
      readonly pipe: PipeNode;
      readonly list: ListNode;
      readonly elseList: ListNode | undefined;
    }
  | { readonly type: 'template'; readonly pos: number; readonly name: string; readonly pipe: PipeNode | undefined }
  | { readonly type: 'break' | 'continue'; readonly pos: number };

/** How a node prints in error messages, like Go's Node.String(). */
export function argString(n: ArgNode): string {
  switch (n.type) {
    case 'field':
      return n.idents.map((i) => `.${i}`).join('');
    case 'variable':
      return n.idents.join('.');
    case 'chain':
      return `${n.node.type === 'pipe' ? `(${argString(n.node)})` : argString(n.node)}${n.fields.map((f) => `.${f}`).join('')}`;
    case 'identifier':
      return n.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(n.value);
    case 'string':
      return n.quoted;
    case 'number':
      return n.text;
    case 'pipe': {
      const decl = n.decl.length > 0 ? `${n.decl.join(', ')} ${n.isAssign ? '=' : ':='} ` : '';
      return (
        decl +
        n.cmds
          .map((c) => c.args.map((a) => (a.type === 'pipe' ? `(${argString(a)})` : argString(a))).join(' '))
          .join(' | ')
      );
    }
  }
}
