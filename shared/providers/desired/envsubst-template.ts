// A parser and evaluator for the `${VAR}` language of drone/envsubst (v2, the version clusterctl's simple
// processor uses), reproducing its grammar quirks so components render exactly as clusterctl renders them.
//
// Grammar, as envsubst scans it:
// - text: `$${` and `$$` give a literal `$` (the second `$` is kept as text), `${` opens a function, the rest is text;
//   a bare `$VAR` is plain text.
// - `${NAME}` with NAME of unicode letters, digits and `_`; `${#NAME}` (length); `${NAME,}` `${NAME,,}` `${NAME^}`
//   `${NAME^^}` (case); `${NAME:=w}` `${NAME:-w}` `${NAME:?w}` `${NAME:+w}` `${NAME=w}` (all mean "w if empty");
//   `${NAME:off}` `${NAME:off:len}`; `${NAME#p}` `${NAME##p}` `${NAME%p}` `${NAME%%p}`; `${NAME/p/s}` `${NAME//p/s}`
//   `${NAME/#p/s}` `${NAME/%p/s}`. Arguments may nest `${...}`; only replace arguments honour `\/`, `\\` and `$$`.
import { compileRegexp, RegexpSyntaxError } from '#shared/lang/go/regexp.ts';
import type { GoRegexp } from '#shared/lang/go/regexp.ts';

export type TemplateNode =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'func'; readonly param: string; readonly op: string; readonly args: readonly TemplateNode[] };

/** Why a template does not parse; the messages are envsubst's own. */
export const TemplateSyntax = {
  BadSubstitution: 'bad substitution',
  MissingClosingBrace: 'missing closing brace',
  ParseVariableName: 'unable to parse variable name',
  ParseFuncSubstitution: 'unable to parse substitution within function',
  ParseDefaultFunction: 'unable to parse default function',
} as const;
export type TemplateSyntax = (typeof TemplateSyntax)[keyof typeof TemplateSyntax];

/** Thrown by parseEnvsubstTemplate; `offset` is the code-point position where parsing stopped. */
export class TemplateSyntaxFailure extends Error {
  constructor(
    readonly syntax: TemplateSyntax,
    readonly offset: number,
  ) {
    super(syntax);
  }
}

type Accept = (c: string) => boolean;
const isIdent: Accept = (c) => /^[\p{L}\p{Nd}_]$/u.test(c);
const notClosing: Accept = (c) => c !== '}';
const notSlash: Accept = (c) => c !== '/';
const notColonOrClose: Accept = (c) => c !== ':' && c !== '}';

class Parser {
  private pos = 0;
  constructor(private readonly chars: readonly string[]) {}

  private peek(ahead = 0): string | undefined {
    return this.chars[this.pos + ahead];
  }

  private fail(syntax: TemplateSyntax): never {
    throw new TemplateSyntaxFailure(syntax, this.pos);
  }

  private atOpen(): boolean {
    return this.peek() === '$' && this.peek(1) === '{';
  }

  /** A literal escaped pair at the cursor (`$$`, and with backslashes `\/` `\\`): returns the kept character. */
  private escaped(backslash: boolean): string | undefined {
    const c = this.peek();
    const next = this.peek(1);
    if (c === '$' && next === '$') return '$';
    if (backslash && c === '\\' && (next === '/' || next === '\\')) return next;
    return undefined;
  }

  parseAll(): TemplateNode[] {
    const nodes: TemplateNode[] = [];
    while (this.pos < this.chars.length) {
      if (this.atOpen()) {
        this.pos += 2;
        nodes.push(this.parseFunc());
        continue;
      }
      let text = '';
      while (this.pos < this.chars.length && !this.atOpen()) {
        const kept = this.escaped(false);
        if (kept !== undefined) {
          text += kept;
          this.pos += 2;
        } else {
          text += this.chars[this.pos];
          this.pos += 1;
        }
      }
      nodes.push({ type: 'text', value: text });
    }
    return nodes;
  }

  /** Consumes a run of up to `max` characters accepted by `accept` (at least one, else undefined). */
  private run(accept: Accept, max = Infinity): string | undefined {
    let out = '';
    while (out.length < max) {
      const c = this.peek();
      if (c === undefined || !accept(c)) break;
      out += c;
      this.pos += 1;
    }
    return out === '' ? undefined : out;
  }

  private closeBrace(): void {
    if (this.peek() !== '}') this.fail(TemplateSyntax.BadSubstitution);
    this.pos += 1;
  }

  private parseFunc(): TemplateNode {
    if (this.peek() === '#') {
      this.pos += 1;
      const param = this.run(isIdent) ?? this.fail(TemplateSyntax.BadSubstitution);
      this.closeBrace();
      return { type: 'func', param, op: '#', args: [] };
    }
    const param = this.run(isIdent) ?? this.fail(TemplateSyntax.ParseVariableName);
    const c = this.peek();
    if (c === ':') {
      const next = this.peek(1);
      if (next === '=' || next === '-' || next === '?' || next === '+') {
        this.pos += 2;
        return this.parseDefault(param, `:${next}`);
      }
      this.pos += 1;
      return this.parseSubstr(param);
    }
    if (c === '=') {
      this.pos += 1;
      return this.parseDefault(param, '=');
    }
    if (c === ',' || c === '^') {
      const op = this.run((x) => x === ',' || x === '^', 2) ?? '';
      this.closeBrace();
      return { type: 'func', param, op, args: [] };
    }
    if (c === '/') {
      this.pos += 1;
      const next = this.peek();
      let op = '/';
      if (next === '/' || next === '#' || next === '%') {
        op += next;
        this.pos += 1;
      }
      return this.parseReplace(param, op);
    }
    if (c === '#' || c === '%') {
      const op = this.run((x) => x === c, 2) ?? '';
      const arg = this.parseParam(notClosing, false);
      this.closeBrace();
      return { type: 'func', param, op, args: [arg] };
    }
    if (c !== '}') this.fail(TemplateSyntax.MissingClosingBrace);
    this.pos += 1;
    return { type: 'func', param, op: '', args: [] };
  }

  private parseParam(accept: Accept, backslash: boolean): TemplateNode {
    if (this.atOpen()) {
      this.pos += 2;
      return this.parseFunc();
    }
    if (this.pos >= this.chars.length) this.fail(TemplateSyntax.ParseFuncSubstitution);
    let text = '';
    let first = true;
    while (this.pos < this.chars.length && !this.atOpen()) {
      const kept = backslash ? this.escaped(true) : undefined;
      if (kept !== undefined) {
        text += kept;
        this.pos += 2;
      } else {
        const c = this.chars[this.pos] ?? '';
        if (!accept(c)) {
          if (first) this.fail(TemplateSyntax.ParseFuncSubstitution);
          break;
        }
        text += c;
        this.pos += 1;
      }
      first = false;
    }
    return { type: 'text', value: text };
  }

  private parseDefault(param: string, op: string): TemplateNode {
    const args: TemplateNode[] = [];
    while (this.peek() !== '}') args.push(this.parseParam(notClosing, false));
    this.pos += 1;
    return { type: 'func', param, op, args };
  }

  private parseSubstr(param: string): TemplateNode {
    const args: TemplateNode[] = [this.parseParam(notColonOrClose, false)];
    const c = this.peek();
    if (c === '}') {
      this.pos += 1;
      return { type: 'func', param, op: ':', args };
    }
    if (c !== ':') this.fail(TemplateSyntax.BadSubstitution);
    this.run((x) => x === ':');
    args.push(this.parseParam(notClosing, false));
    this.closeBrace();
    return { type: 'func', param, op: ':', args };
  }

  private parseReplace(param: string, op: string): TemplateNode {
    const args: TemplateNode[] = [this.parseParam(notSlash, true)];
    if (this.run((x) => x === '/') === undefined) this.fail(TemplateSyntax.BadSubstitution);
    if (this.peek() === '}') {
      this.pos += 1;
      return { type: 'func', param, op, args };
    }
    args.push(this.parseParam(notClosing, true));
    this.closeBrace();
    return { type: 'func', param, op, args };
  }
}

/** clusterctl's compatibility rewrite: `${ VAR}`, `${VAR }`, `${ VAR }` become `${VAR}`. */
export function normalizeLegacyVariables(text: string): string {
  return text.replace(/\$\{(\s+[A-Za-z0-9_$]+\s+|\s+[A-Za-z0-9_$]+|[A-Za-z0-9_$]+\s+)\}/g, (m) => m.replace(/\s/g, ''));
}

/**
 * Parses envsubst text into nodes; throws TemplateSyntaxFailure.
 *
 * @example
 * parseEnvsubstTemplate('image: ${REGISTRY:=docker.io}/app'); // [text, func REGISTRY ':=' [text 'docker.io'], text]
 */
export function parseEnvsubstTemplate(text: string): TemplateNode[] {
  return new Parser(Array.from(text)).parseAll();
}

const encoder = new TextEncoder();

function goAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

function substr(s: string, args: readonly string[]): string {
  const first = args[0];
  if (first === undefined) return s;
  let pos = goAtoi(first);
  if (pos === undefined) return s;
  if (pos < 0) pos = Math.max(0, s.length + pos);
  const second = args[1];
  if (second === undefined) return pos < s.length ? s.slice(pos) : '';
  const length = goAtoi(second);
  if (length === undefined) return s;
  if (pos + length >= s.length) return pos < s.length ? s.slice(pos) : '';
  return length < 0 ? '' : s.slice(pos, pos + length);
}

/**
 * Go's `path.Match` as a Go regexp (`*`, `?`, `[...]`, `\x`), matched in linear time; undefined for a malformed
 * pattern.
 */
function compileGlob(pattern: string): GoRegexp | undefined {
  let out = '';
  const chars = Array.from(pattern);
  const lit = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  const litIn = (c: string) => c.replace(/[\\\]^-]/g, '\\$&');
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      const next = chars[++i];
      if (next === undefined) return undefined;
      out += lit(next);
    } else if (c === '[') {
      let cls = '';
      if (chars[i + 1] === '^') {
        cls += '^';
        i++;
      }
      let closed = false;
      let count = 0;
      while (++i < chars.length) {
        let x = chars[i] ?? '';
        if (x === ']' && count > 0) {
          closed = true;
          break;
        }
        if (x === '\\') x = chars[++i] ?? '';
        if (x === '' || x === ']' || x === '-') return undefined;
        cls += litIn(x);
        if (chars[i + 1] === '-' && chars[i + 2] !== ']') {
          let hi = chars[i + 2] ?? '';
          i += 2;
          if (hi === '\\') hi = chars[++i] ?? '';
          if (hi === '' || hi < x) return undefined;
          cls += `-${litIn(hi)}`;
        }
        count++;
      }
      if (!closed) return undefined;
      out += `[${cls}]`;
    } else out += lit(c);
  }
  try {
    return compileRegexp(`(?s)^${out}$`);
  } catch (err) {
    if (err instanceof RegexpSyntaxError) return undefined;
    throw err;
  }
}

function trimPrefix(s: string, pattern: string, longest: boolean): string {
  const re = compileGlob(pattern);
  if (!re) return s;
  let match: string | undefined;
  for (let end = s.length; end > 0; end--) {
    if (re.matchString(s.slice(0, end))) {
      match = s.slice(0, end);
      if (longest) break;
    }
  }
  return match ? s.slice(match.length) : s;
}

const reverse = (s: string) => Array.from(s).reverse().join('');

function applyFunc(op: string, v: string, args: readonly string[]): string {
  const a0 = args[0];
  const a1 = args[1];
  switch (op) {
    case ',':
      return v ? (Array.from(v)[0] ?? '').toLowerCase() + Array.from(v).slice(1).join('') : v;
    case ',,':
      return v.toLowerCase();
    case '^':
      return v ? (Array.from(v)[0] ?? '').toUpperCase() + Array.from(v).slice(1).join('') : v;
    case '^^':
      return v.toUpperCase();
    case '#':
      return a0 === undefined ? String(encoder.encode(v).length) : trimPrefix(v, a0, false);
    case '##':
      return a0 === undefined ? v : trimPrefix(v, a0, true);
    case '%':
      return a0 === undefined ? v : reverse(trimPrefix(reverse(v), reverse(a0), false));
    case '%%':
      return a0 === undefined ? v : reverse(trimPrefix(reverse(v), reverse(a0), true));
    case ':':
      return substr(v, args);
    case '/#':
      return a0 !== undefined && a1 !== undefined && v.startsWith(a0) ? a1 + v.slice(a0.length) : v;
    case '/%':
      return a0 !== undefined && a1 !== undefined && v.endsWith(a0) ? v.slice(0, v.length - a0.length) + a1 : v;
    case '/':
      return a0 === undefined ? v : v.replace(a0, () => a1 ?? '');
    case '//':
      if (a0 === undefined) return v;
      // NOTE: Go's strings.Replace with an empty pattern inserts the replacement around every rune.
      if (a0 === '')
        return (
          (a1 ?? '') +
          Array.from(v)
            .map((c) => c + (a1 ?? ''))
            .join('')
        );
      return v.split(a0).join(a1 ?? '');
    default:
      return v === '' && args.length > 0 ? args.join('') : v;
  }
}

/**
 * Renders parsed nodes; `lookup` returns undefined for an unset variable (rendered as the empty string).
 *
 * @example
 * computeEnvsubst(parseEnvsubstTemplate('${A:=x}'), () => undefined); // 'x'
 */
export function computeEnvsubst(nodes: readonly TemplateNode[], lookup: (name: string) => string | undefined): string {
  const render = (node: TemplateNode): string => {
    if (node.type === 'text') return node.value;
    const args = node.args.map(render);
    return applyFunc(node.op, lookup(node.param) ?? '', args);
  };
  return nodes.map(render).join('');
}

/**
 * Variables used at the top level, each with the default text of its first use ('' when required), as clusterctl's
 * simple processor inspects them (variables nested inside a default are not listed).
 */
export function computeTemplateVariables(nodes: readonly TemplateNode[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const node of nodes) {
    if (node.type !== 'func' || out.has(node.param)) continue;
    out.set(node.param, node.args.map((a) => (a.type === 'text' ? a.value : `\${${a.param}}`)).join(''));
  }
  return out;
}
