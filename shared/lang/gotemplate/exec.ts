// Executes a parsed template against Go values, following text/template/exec.go.
import type { ArgNode, ListNode, Node, NumberNode, PipeNode } from './ast.ts';
import { argString } from './ast.ts';
import { TemplateExecError } from './errors.ts';
import { printOne } from './go-fmt.ts';
import { FuncError, goTypeOfParam } from './go-func.ts';
import type { FuncMap, GoFunc, ParamType } from './go-func.ts';
import { lineCol } from './lexer.ts';
import { TEMPLATE_LIMITS, valueSize } from './limits.ts';
import { versionMethods } from './sprig-semver.ts';
import { GoInt, GoMap, GoSlice, GoVersion, goInt, goTypeName, isTrue, sortedKeys } from './values.ts';
import type { GoValue } from './values.ts';

/** How a missing map key evaluates: Go's `missingkey=default|zero|error` option. */
export type MissingKey = 'default' | 'zero' | 'error';

export type ExecContext = {
  readonly name: string;
  readonly text: string;
  readonly trees: ReadonlyMap<string, ListNode>;
  readonly funcs: FuncMap;
  readonly missingKey: MissingKey;
};

const MISSING: unique symbol = Symbol('missing');
type Final = GoValue | typeof MISSING;

class BreakSignal {}
class ContinueSignal {}

const maxExecDepth = 1000;

/** Runs template `ctx.name` with `data` as dot and `$`. */
export function execute(ctx: ExecContext, data: GoValue): string {
  const root = ctx.trees.get(ctx.name);
  if (root === undefined)
    throw new TemplateExecError(ctx.name, ctx.name, '', `"${ctx.name}" is an incomplete or empty template`);
  const state = new State(ctx);
  state.vars.push({ name: '$', value: data });
  state.walk(data, root);
  return state.output();
}

class State {
  private readonly out: string[] = [];
  private outLength = 0;
  private steps = 0;
  vars: { name: string; value: GoValue }[] = [];
  private depth = 0;
  private tmplName: string;
  private at: { pos: number; what: string } = { pos: 0, what: '' };

  constructor(private readonly ctx: ExecContext) {
    this.tmplName = ctx.name;
  }

  private fail(why: string): never {
    const { line, col } = lineCol(this.ctx.text, this.at.pos);
    throw new TemplateExecError(this.tmplName, `${this.ctx.name}:${line}:${col}`, this.at.what, why);
  }

  private atNode(pos: number, what: string): void {
    this.at = { pos, what };
  }

  /** Counts one action, call or iteration against TEMPLATE_LIMITS.maxSteps. */
  private step(): void {
    if (++this.steps > TEMPLATE_LIMITS.maxSteps)
      this.fail(`template execution exceeded the limit of ${TEMPLATE_LIMITS.maxSteps} steps`);
  }

  private write(text: string): void {
    this.outLength += text.length;
    if (this.outLength > TEMPLATE_LIMITS.maxLength)
      this.fail(`template output exceeded the limit of ${TEMPLATE_LIMITS.maxLength} characters`);
    this.out.push(text);
  }

  output(): string {
    return this.out.join('');
  }

  private varValue(name: string): GoValue {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v !== undefined && v.name === name) return v.value;
    }
    return this.fail(`undefined variable: ${name}`);
  }

  private setVar(name: string, value: GoValue): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v !== undefined && v.name === name) {
        v.value = value;
        return;
      }
    }
    this.fail(`undefined variable: ${name}`);
  }

  private setTopVar(n: number, value: GoValue): void {
    const v = this.vars[this.vars.length - n];
    if (v !== undefined) v.value = value;
  }

  walk(dot: GoValue, list: ListNode): void {
    for (const node of list.nodes) this.walkNode(dot, node);
  }

  private walkNode(dot: GoValue, node: Node): void {
    this.step();
    switch (node.type) {
      case 'text':
        this.write(node.text);
        return;
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.atNode(node.pos, argString(node.pipe));
          // NOTE: a value is at most TEMPLATE_LIMITS.maxLength long (see evalCall), so printing it is bounded.
          this.write(val === undefined ? '<no value>' : printOne(val));
        }
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const val = this.evalPipeline(dot, node.pipe);
        if (isTrue(val)) this.walk(node.type === 'with' ? val : dot, node.list);
        else if (node.elseList !== undefined) this.walk(dot, node.elseList);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.walkRange(dot, node.pipe, node.list, node.elseList);
        return;
      case 'template': {
        this.atNode(node.pos, `template "${node.name}"`);
        const tree = this.ctx.trees.get(node.name);
        if (tree === undefined) this.fail(`template "${node.name}" not defined`);
        if (this.depth >= maxExecDepth) this.fail(`exceeded maximum template depth (${maxExecDepth})`);
        const newDot = node.pipe === undefined ? undefined : this.evalPipeline(dot, node.pipe);
        const saved = { vars: this.vars, name: this.tmplName };
        this.vars = [{ name: '$', value: newDot }];
        this.depth++;
        this.tmplName = node.name;
        try {
          this.walk(newDot, tree);
        } finally {
          this.depth--;
          this.vars = saved.vars;
          this.tmplName = saved.name;
        }
        return;
      }
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
    }
  }

  private walkRange(dot: GoValue, pipe: PipeNode, list: ListNode, elseList: ListNode | undefined): void {
    const outer = this.vars.length;
    const val = this.evalPipeline(dot, pipe);
    const mark = this.vars.length;
    const oneIteration = (index: GoValue, elem: GoValue): void => {
      if (pipe.decl.length > 0) {
        if (pipe.isAssign) this.setVar(pipe.decl[0] ?? '', pipe.decl.length > 1 ? index : elem);
        else this.setTopVar(1, elem);
      }
      if (pipe.decl.length > 1) {
        if (pipe.isAssign) this.setVar(pipe.decl[1] ?? '', elem);
        else this.setTopVar(2, index);
      }
      this.step();
      try {
        this.walk(elem, list);
      } catch (err) {
        if (!(err instanceof ContinueSignal)) throw err;
      } finally {
        this.vars.length = mark;
      }
    };
    let ran = false;
    try {
      if (val instanceof GoInt) {
        if (pipe.decl.length > 1) this.fail(`can't use ${printOne(val)} to iterate over more than one variable`);
        if (val.value > BigInt(TEMPLATE_LIMITS.maxListLength))
          this.fail(
            `range over ${val.value} exceeds the template limit of ${TEMPLATE_LIMITS.maxListLength} iterations`,
          );
        for (let i = 0n; i < val.value; i++) {
          ran = true;
          oneIteration(undefined, new GoInt(val.type, i));
        }
      } else if (val instanceof GoSlice) {
        for (let i = 0; i < val.items.length; i++) {
          ran = true;
          oneIteration(goInt(i), val.items[i]);
        }
      } else if (val instanceof GoMap) {
        for (const k of sortedKeys(val)) {
          ran = true;
          oneIteration(k, val.entries.get(k));
        }
      } else if (val !== undefined && val !== null) {
        this.fail(`range can't iterate over ${printOne(val)}`);
      }
    } catch (err) {
      if (!(err instanceof BreakSignal)) throw err;
      ran = true;
    }
    if (!ran && elseList !== undefined) this.walk(dot, elseList);
    this.vars.length = outer;
  }

  private evalPipeline(dot: GoValue, pipe: PipeNode): GoValue {
    this.atNode(pipe.pos, argString(pipe));
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd.args, value);
      // NOTE: Go unwraps an interface{} after each command, so a nil interface becomes a missing value.
      if (value === null) value = undefined;
    }
    const result = value === MISSING ? undefined : value;
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, result);
      else this.vars.push({ name, value: result });
    }
    return result;
  }

  private notAFunction(args: readonly ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.fail(`can't give argument to non-function ${argString(args[0]!)}`);
  }

  private evalCommand(dot: GoValue, args: readonly ArgNode[], final: Final): GoValue {
    const first = args[0]!;
    this.atNode(first.pos, argString(first));
    switch (first.type) {
      case 'field':
        return this.evalFieldChain(dot, dot, first.idents, args, final);
      case 'chain':
        return this.evalChain(dot, first, args, final);
      case 'identifier':
        return this.evalFunction(dot, first.name, args, final);
      case 'pipe':
        this.notAFunction(args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariable(dot, first.idents, args, final);
      default:
    }
    this.notAFunction(args, final);
    switch (first.type) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        return this.fail('nil is not a command');
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
  }

  private idealConstant(n: NumberNode): GoValue {
    const hexInt = /^0[xX]/.test(n.text) && !/[pP]/.test(n.text);
    if (n.isFloat && !hexInt && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return n.float64;
    if (n.isInt) return new GoInt('int', n.int64);
    if (n.isUint) this.fail(`${n.text} overflows int`);
    return undefined;
  }

  private evalChain(
    dot: GoValue,
    chain: Extract<ArgNode, { type: 'chain' }>,
    args: readonly ArgNode[],
    final: Final,
  ): GoValue {
    if (chain.node.type === 'nil') this.fail(`indirection through explicit nil in ${argString(chain)}`);
    const receiver = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(dot, receiver, chain.fields, args, final);
  }

  private evalVariable(dot: GoValue, idents: readonly string[], args: readonly ArgNode[], final: Final): GoValue {
    const value = this.varValue(idents[0] ?? '$');
    if (idents.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, idents.slice(1), args, final);
  }

  private evalFieldChain(
    dot: GoValue,
    receiver: GoValue,
    idents: readonly string[],
    args: readonly ArgNode[],
    final: Final,
  ): GoValue {
    let r = receiver;
    for (let i = 0; i < idents.length - 1; i++) r = this.evalField(dot, idents[i] ?? '', [], MISSING, r);
    return this.evalField(dot, idents[idents.length - 1] ?? '', args, final, r);
  }

  private evalField(dot: GoValue, field: string, args: readonly ArgNode[], final: Final, receiver: GoValue): GoValue {
    if (receiver === undefined) {
      if (this.ctx.missingKey === 'error') this.fail(`nil data; no entry for key "${field}"`);
      return undefined;
    }
    if (receiver === null) return this.fail(`nil pointer evaluating interface {}.${field}`);
    if (receiver instanceof GoVersion) {
      const method = versionMethods(receiver).get(field);
      if (method !== undefined) return this.evalCall(dot, method, field, args, final);
    }
    if (receiver instanceof GoMap) {
      if (args.length > 1 || final !== MISSING) this.fail(`${field} is not a method but has arguments`);
      if (receiver.entries.has(field)) return receiver.entries.get(field);
      switch (this.ctx.missingKey) {
        case 'error':
          return this.fail(`map has no entry for key "${field}"`);
        case 'zero':
          return receiver.elem === 'string' ? '' : null;
        default:
          return undefined;
      }
    }
    return this.fail(`can't evaluate field ${field} in type ${goTypeName(receiver)}`);
  }

  private evalFunction(dot: GoValue, name: string, args: readonly ArgNode[], final: Final): GoValue {
    const f = this.ctx.funcs.get(name);
    if (f === undefined) return this.fail(`"${name}" is not a defined function`);
    return this.evalCall(dot, f, name, args, final);
  }

  private evalCall(dot: GoValue, f: GoFunc, name: string, allArgs: readonly ArgNode[], final: Final): GoValue {
    const args = allArgs.slice(1);
    const numIn = args.length + (final === MISSING ? 0 : 1);
    let numFixed = args.length;
    if (f.variadic !== undefined) {
      numFixed = f.params.length;
      if (numIn < numFixed)
        this.fail(`wrong number of args for ${name}: want at least ${f.params.length} got ${args.length}`);
    } else if (numIn !== f.params.length) {
      this.fail(`wrong number of args for ${name}: want ${f.params.length} got ${numIn}`);
    }
    if (name === 'and' || name === 'or') {
      let v: GoValue = undefined;
      for (const arg of args) {
        v = this.evalArg(dot, 'value', arg);
        if (isTrue(v === null ? undefined : v) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: GoValue[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(this.evalArg(dot, f.params[i], args[i]!));
    if (f.variadic !== undefined) for (; i < args.length; i++) argv.push(this.evalArg(dot, f.variadic, args[i]!));
    if (final !== MISSING) {
      let t: ParamType | undefined = f.params[f.params.length - 1];
      if (f.variadic !== undefined) t = numIn - 1 < numFixed ? f.params[numIn - 1] : f.variadic;
      argv.push(this.validateType(final, t));
    }
    this.step();
    let result: GoValue;
    try {
      result = f.call(argv);
    } catch (err) {
      if (err instanceof FuncError) this.fail(`error calling ${name}: ${err.message}`);
      // NOTE: a JavaScript limit reached inside a function (a string or array too long) is that call's error.
      if (err instanceof RangeError) this.fail(`error calling ${name}: ${err.message}`);
      throw err;
    }
    const size = valueSize(result);
    if (size > TEMPLATE_LIMITS.maxLength)
      this.fail(
        `error calling ${name}: a value of more than ${TEMPLATE_LIMITS.maxLength} characters exceeds the template limit`,
      );
    return result;
  }

  private validateType(value: GoValue, typ: ParamType | undefined): GoValue {
    if (typ === undefined || typ === 'value') return value;
    if (value === undefined) {
      if (typ === 'any') return null;
      if (typ === 'map') return new GoMap('interface {}', new Map(), true);
      return this.fail(`invalid value; expected ${goTypeOfParam[typ]}`);
    }
    const ok = (() => {
      switch (typ) {
        case 'any':
          return true;
        case 'string':
          return typeof value === 'string';
        case 'bool':
          return typeof value === 'boolean';
        case 'float64':
          return typeof value === 'number';
        case 'int':
          return value instanceof GoInt && value.type === 'int';
        case 'map':
          return value instanceof GoMap && value.elem === 'interface {}';
        case 'version':
          return value instanceof GoVersion;
      }
    })();
    if (!ok)
      this.fail(
        `wrong type for value; expected ${goTypeOfParam[typ]}; got ${value === null ? 'interface {}' : goTypeName(value)}`,
      );
    return value;
  }

  private evalArg(dot: GoValue, typ: ParamType | undefined, n: ArgNode): GoValue {
    this.atNode(n.pos, argString(n));
    switch (n.type) {
      case 'dot':
        return this.validateType(dot, typ);
      case 'nil':
        if (typ === 'value') return undefined;
        if (typ === 'any') return null;
        if (typ === 'map') return new GoMap('interface {}', new Map(), true);
        return this.fail(`cannot assign nil to ${typ === undefined ? '<nil>' : goTypeOfParam[typ]}`);
      case 'field':
        return this.validateType(this.evalFieldChain(dot, dot, n.idents, [n], MISSING), typ);
      case 'variable':
        return this.validateType(this.evalVariable(dot, n.idents, [], MISSING), typ);
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), typ);
      case 'identifier':
        return this.validateType(this.evalFunction(dot, n.name, [n], MISSING), typ);
      case 'chain':
        return this.validateType(this.evalChain(dot, n, [], MISSING), typ);
      default:
    }
    switch (typ) {
      case 'bool':
        if (n.type === 'bool') return n.value;
        return this.fail(`expected bool; found ${argString(n)}`);
      case 'float64':
        if (n.type === 'number' && n.isFloat) return n.float64;
        return this.fail(`expected float; found ${argString(n)}`);
      case 'int':
        if (n.type === 'number' && n.isInt) return new GoInt('int', n.int64);
        return this.fail(`expected integer; found ${argString(n)}`);
      case 'string':
        if (n.type === 'string') return n.text;
        return this.fail(`expected string; found ${argString(n)}`);
      case 'any':
      case 'value':
        if (n.type === 'bool') return n.value;
        if (n.type === 'number') return this.idealConstant(n);
        if (n.type === 'string') return n.text;
        return this.fail(`can't handle assignment of ${argString(n)} to empty interface argument`);
      default:
        return this.fail(
          `can't handle ${argString(n)} for arg of type ${typ === undefined ? '<nil>' : goTypeOfParam[typ]}`,
        );
    }
  }
}
