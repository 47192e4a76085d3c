// Parser of Go text/template (text/template/parse/parse.go): tokens to a tree per named template.
import type { ArgNode, CommandNode, ListNode, Node, NumberNode, PipeNode } from './ast.ts';
import { argString } from './ast.ts';
import { TemplateParseError } from './errors.ts';
import { lex, lineCol } from './lexer.ts';
import type { Token, TokenType } from './lexer.ts';
import { unquote as strconvUnquote } from '#shared/lang/go/strconv.ts';

/** The trees of one parse: the main template and every `define`/`block`, by name. */
export type ParsedTrees = ReadonlyMap<string, ListNode>;

const isEmptyTree = (list: ListNode): boolean => list.nodes.every((n) => n.type === 'text' && n.text.trim() === '');

/** Parses `text` as template `name`; `isFunction` tells which function names exist (Go checks them at parse time). */
export function parseTrees(name: string, text: string, isFunction: (fn: string) => boolean): ParsedTrees {
  const tokens = lex(name, text);
  const trees = new Map<string, ListNode>();
  let i = 0;
  let vars: string[] = ['$'];
  let rangeDepth = 0;

  const fail = (why: string, pos: number): never => {
    const { line, col } = lineCol(text, pos);
    throw new TemplateParseError(name, line, col, why);
  };
  const next = (): Token => tokens[i++] ?? { type: 'eof', val: '', pos: text.length };
  const peek = (): Token => tokens[i] ?? { type: 'eof', val: '', pos: text.length };
  const backup = (n = 1): void => {
    i -= n;
  };
  const nextNonSpace = (): Token => {
    let t = next();
    while (t.type === 'space') t = next();
    return t;
  };
  const peekNonSpace = (): Token => {
    const t = nextNonSpace();
    backup();
    return t;
  };
  const unexpected = (t: Token, context: string): never =>
    fail(t.type === 'eof' ? `unexpected EOF` : `unexpected ${describe(t)} in ${context}`, t.pos);
  const expect = (type: TokenType, context: string): Token => {
    const t = nextNonSpace();
    if (t.type !== type) unexpected(t, context);
    return t;
  };
  const add = (treeName: string, list: ListNode, pos: number): void => {
    const old = trees.get(treeName);
    if (old === undefined || isEmptyTree(old)) trees.set(treeName, list);
    else if (!isEmptyTree(list)) fail(`template: multiple definition of template "${treeName}"`, pos);
  };

  // parse: top level, where `define` may appear.
  const root: Node[] = [];
  while (peek().type !== 'eof') {
    if (peek().type === 'leftDelim') {
      const delim = next();
      if (nextNonSpace().type === 'define') {
        parseDefinition(delim.pos);
        continue;
      }
      i = tokens.indexOf(delim);
    }
    const n = textOrAction();
    if (n === 'end' || n === 'else') fail(`unexpected {{${n}}}`, peek().pos);
    else if (n !== undefined) root.push(n);
  }
  add(name, { type: 'list', nodes: root }, 0);
  return trees;

  function parseDefinition(pos: number): void {
    const nameTok = nextNonSpace();
    const defName = templateName(nameTok, 'define clause');
    expect('rightDelim', 'define clause');
    const saved = vars;
    vars = ['$'];
    const [list, end] = itemList();
    vars = saved;
    if (end !== 'end') fail(`unexpected {{else}} in define clause`, pos);
    add(defName, list, pos);
  }

  function templateName(t: Token, context: string): string {
    if (t.type === 'string' || t.type === 'rawString') return unquote(t);
    return unexpected(t, context);
  }

  function itemList(): [ListNode, 'end' | 'else'] {
    const nodes: Node[] = [];
    while (peekNonSpace().type !== 'eof') {
      const n = textOrAction();
      if (n === 'end' || n === 'else') return [{ type: 'list', nodes }, n];
      if (n !== undefined) nodes.push(n);
    }
    return fail('unexpected EOF', text.length);
  }

  function textOrAction(): Node | 'end' | 'else' | undefined {
    const t = nextNonSpace();
    if (t.type === 'text') return { type: 'text', text: t.val };
    if (t.type === 'leftDelim') return action();
    return unexpected(t, 'input');
  }

  function action(): Node | 'end' | 'else' | undefined {
    const t = nextNonSpace();
    switch (t.type) {
      case 'block':
        return blockControl(t.pos);
      case 'break':
      case 'continue': {
        const close = nextNonSpace();
        if (close.type !== 'rightDelim') unexpected(close, `{{${t.type}}}`);
        if (rangeDepth === 0) fail(`{{${t.type}}} outside {{range}}`, t.pos);
        return { type: t.type, pos: t.pos };
      }
      case 'else': {
        const p = peekNonSpace();
        if (p.type === 'if' || p.type === 'with') return 'else';
        expect('rightDelim', 'else');
        return 'else';
      }
      case 'end':
        expect('rightDelim', 'end');
        return 'end';
      case 'if':
      case 'with':
      case 'range':
        return control(t.type, t.pos);
      case 'template': {
        const tname = templateName(nextNonSpace(), 'template clause');
        let pipe: PipeNode | undefined;
        if (nextNonSpace().type !== 'rightDelim') {
          backup();
          pipe = pipeline('template clause', 'rightDelim');
        }
        return { type: 'template', pos: t.pos, name: tname, pipe };
      }
      default:
        backup();
        return { type: 'action', pos: t.pos, pipe: pipeline('command', 'rightDelim') };
    }
  }

  function blockControl(pos: number): Node {
    const bname = templateName(nextNonSpace(), 'block clause');
    const pipe = pipeline('block clause', 'rightDelim');
    const saved = vars;
    vars = ['$'];
    const [list, end] = itemList();
    vars = saved;
    if (end !== 'end') fail('unexpected {{else}} in block clause', pos);
    add(bname, list, pos);
    return { type: 'template', pos, name: bname, pipe };
  }

  function control(kind: 'if' | 'with' | 'range', pos: number): Node {
    const mark = vars.length;
    const pipe = pipeline(kind, 'rightDelim');
    if (kind === 'range') rangeDepth++;
    const [list, end] = itemList();
    if (kind === 'range') rangeDepth--;
    let elseList: ListNode | undefined;
    if (end === 'else') {
      if ((kind === 'if' || kind === 'with') && peekNonSpace().type === kind) {
        const t = nextNonSpace();
        elseList = { type: 'list', nodes: [control(kind, t.pos)] };
      } else {
        const [els, end2] = itemList();
        if (end2 !== 'end') fail('expected end; found {{else}}', pos);
        elseList = els;
      }
    }
    vars = vars.slice(0, mark);
    return { type: kind, pos, pipe, list, elseList };
  }

  function pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const pos = peekNonSpace().pos;
    const decl: string[] = [];
    let isAssign = false;
    for (;;) {
      const v = peekNonSpace();
      if (v.type !== 'variable') break;
      const save = i;
      nextNonSpace();
      const after = peek();
      const n = peekNonSpace();
      if (n.type === 'assign' || n.type === 'declare') {
        isAssign = n.type === 'assign';
        nextNonSpace();
        decl.push(v.val);
        vars.push(v.val);
        break;
      }
      if (n.type === 'char' && n.val === ',') {
        nextNonSpace();
        decl.push(v.val);
        vars.push(v.val);
        if (context === 'range' && decl.length < 2) {
          const p = peekNonSpace();
          if (p.type === 'variable' || p.type === 'rightDelim' || p.type === 'rightParen') continue;
          fail('range can only initialize variables', p.pos);
        }
        fail(`too many declarations in ${context}`, v.pos);
      }
      void after;
      i = save;
      break;
    }
    const cmds: CommandNode[] = [];
    for (;;) {
      const t = nextNonSpace();
      if (t.type === end) {
        if (cmds.length === 0) fail(`missing value for ${context}`, t.pos);
        cmds.slice(1).forEach((c, k) => {
          const first = c.args[0];
          if (first && ['bool', 'dot', 'nil', 'number', 'string'].includes(first.type)) {
            fail(`non executable command in pipeline stage ${k + 2}`, first.pos);
          }
        });
        return { type: 'pipe', pos, isAssign, decl, cmds };
      }
      switch (t.type) {
        case 'bool':
        case 'charConstant':
        case 'dot':
        case 'field':
        case 'identifier':
        case 'number':
        case 'nil':
        case 'rawString':
        case 'string':
        case 'variable':
        case 'leftParen':
          backup();
          cmds.push(command());
          break;
        default:
          unexpected(t, context);
      }
    }
  }

  function command(): CommandNode {
    const args: ArgNode[] = [];
    const pos = peekNonSpace().pos;
    for (;;) {
      peekNonSpace();
      const op = operand();
      if (op !== undefined) args.push(op);
      const t = next();
      if (t.type === 'space') continue;
      if (t.type === 'rightDelim' || t.type === 'rightParen') backup();
      else if (t.type !== 'pipe') unexpected(t, 'operand');
      break;
    }
    if (args.length === 0) fail('empty command', pos);
    return { type: 'command', pos, args };
  }

  function operand(): ArgNode | undefined {
    const node = term();
    if (node === undefined) return undefined;
    if (peek().type !== 'field') return node;
    const fields: string[] = [];
    while (peek().type === 'field') fields.push(next().val.slice(1));
    switch (node.type) {
      case 'field':
        return { type: 'field', pos: node.pos, idents: [...node.idents, ...fields] };
      case 'variable':
        return { type: 'variable', pos: node.pos, idents: [...node.idents, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return fail(`unexpected . after term "${argString(node)}"`, node.pos);
      default:
        return { type: 'chain', pos: node.pos, node, fields };
    }
  }

  function term(): ArgNode | undefined {
    const t = nextNonSpace();
    switch (t.type) {
      case 'identifier':
        if (!isFunction(t.val)) fail(`function "${t.val}" not defined`, t.pos);
        return { type: 'identifier', pos: t.pos, name: t.val };
      case 'dot':
        return { type: 'dot', pos: t.pos };
      case 'nil':
        return { type: 'nil', pos: t.pos };
      case 'variable': {
        const [head, ...rest] = t.val.split('.');
        if (!vars.includes(head ?? '')) fail(`undefined variable "${head ?? ''}"`, t.pos);
        return { type: 'variable', pos: t.pos, idents: [head ?? '$', ...rest] };
      }
      case 'field':
        return { type: 'field', pos: t.pos, idents: [t.val.slice(1)] };
      case 'bool':
        return { type: 'bool', pos: t.pos, value: t.val === 'true' };
      case 'charConstant':
      case 'number':
        return parseNumber(t);
      case 'leftParen':
        return pipeline('parenthesized pipeline', 'rightParen');
      case 'string':
      case 'rawString':
        return { type: 'string', pos: t.pos, quoted: t.val, text: unquote(t) };
      default:
        backup();
        return undefined;
    }
  }

  function unquote(t: Token): string {
    try {
      return strconvUnquote(t.val);
    } catch {
      return fail(`invalid syntax: ${t.val}`, t.pos);
    }
  }

  function parseNumber(t: Token): NumberNode {
    try {
      return newNumber(t.val, t.pos, t.type === 'charConstant');
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err), t.pos);
    }
  }
}

function describe(t: Token): string {
  switch (t.type) {
    case 'rightDelim':
      return '"}}"';
    case 'leftDelim':
      return '"{{"';
    case 'eof':
      return 'EOF';
    default:
      return `<${t.val}>`;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** parse.newNumber: a number literal, with which of int, uint and float it can be. */
export function newNumber(text: string, pos: number, isChar: boolean): NumberNode {
  const base = { type: 'number' as const, pos, text };
  if (isChar) {
    const s = strconvUnquote(`"${text.slice(1, -1).replace(/"/g, '\\"')}"`);
    const cps = [...s];
    if (cps.length !== 1) throw new Error(`malformed character constant: ${text}`);
    const r = BigInt(cps[0]!.codePointAt(0) ?? 0);
    return { ...base, isInt: true, isUint: true, isFloat: true, int64: r, uint64: r, float64: Number(r) };
  }
  if (text.endsWith('i')) throw new Error(`complex numbers are not supported: "${text}"`);
  const parsed = parseGoInt(text);
  let isInt = false;
  let isUint = false;
  let isFloat = false;
  let int64 = 0n;
  let uint64 = 0n;
  let float64 = 0;
  if (parsed !== undefined) {
    if (parsed >= 0n && parsed <= UINT64_MAX) {
      isUint = true;
      uint64 = parsed;
    }
    if (parsed >= INT64_MIN && parsed <= INT64_MAX) {
      isInt = true;
      int64 = parsed;
    }
  }
  if (isInt || isUint) {
    isFloat = true;
    float64 = Number(isInt ? int64 : uint64);
  } else {
    const f = parseGoFloat(text);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) throw new Error(`integer overflow: "${text}"`);
      isFloat = true;
      float64 = f;
      if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
        isInt = true;
        int64 = BigInt(f);
      }
      if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
        isUint = true;
        uint64 = BigInt(f);
      }
    }
  }
  if (!isInt && !isUint && !isFloat) throw new Error(`illegal number syntax: "${text}"`);
  return { ...base, isInt, isUint, isFloat, int64, uint64, float64 };
}

/** strconv.ParseInt(text, 0, ...) without the range check; undefined when not an integer literal. */
function parseGoInt(text: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (!m) return undefined;
  let body = m[2] ?? '';
  if (body.includes('_')) {
    if (!/^(0[xXoObB]?)?(_?[0-9a-fA-F]+)+$/.test(body) || body.endsWith('_')) return undefined;
    body = body.replace(/_/g, '');
  }
  let value: bigint;
  if (/^0[oO]/.test(body)) value = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  return m[1] === '-' ? -value : value;
}

function parseGoFloat(text: string): number | undefined {
  const t = text.replace(/_/g, '');
  if (/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(t)) return Number(t);
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(t);
  if (hex) {
    const mant = parseInt((hex[2] ?? '') + (hex[3] ?? '') || '0', 16);
    const v = mant * 2 ** (Number(hex[4]) - 4 * (hex[3] ?? '').length);
    return hex[1] === '-' ? -v : v;
  }
  return undefined;
}
