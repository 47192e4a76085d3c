// Lexer of Go text/template (text/template/parse/lex.go): turns template text into tokens.
import { TemplateParseError } from './errors.ts';

export const keywords = [
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'range',
  'nil',
  'template',
  'with',
] as const;
export type Keyword = (typeof keywords)[number];

export type TokenType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'eof'
  | 'identifier'
  | 'field'
  | 'variable'
  | 'dot'
  | 'bool'
  | 'number'
  | 'charConstant'
  | 'string'
  | 'rawString'
  | 'assign'
  | 'declare'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'char'
  | Keyword;

export type Token = { readonly type: TokenType; readonly val: string; readonly pos: number };

const spaceChars = ' \t\r\n';
const isSpace = (c: string | undefined): boolean => c !== undefined && spaceChars.includes(c);
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && /^[\p{L}\p{Nd}_]$/u.test(c);

/** 1-based line and column of an offset. */
export function lineCol(input: string, pos: number): { line: number; col: number } {
  const before = input.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - (before.lastIndexOf('\n') + 1) + 1;
  return { line, col };
}

/** Lexes a whole template; throws TemplateParseError on a lexical error. */
export function lex(name: string, input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let start = 0;
  let parenDepth: number;
  const fail = (why: string, at = start): never => {
    const { line, col } = lineCol(input, at);
    throw new TemplateParseError(name, line, col, why);
  };
  const emit = (type: TokenType): void => {
    tokens.push({ type, val: input.slice(start, pos), pos: start });
    start = pos;
  };
  const hasLeftTrim = (at: number): boolean => input[at] === '-' && isSpace(input[at + 1]);
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (isSpace(input[pos]) && input[pos + 1] === '-' && input.startsWith('}}', pos + 2))
      return { delim: true, trim: true };
    if (input.startsWith('}}', pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  };
  const atTerminator = (): boolean => {
    const c = input[pos];
    if (c === undefined || isSpace(c) || '.,|:()'.includes(c)) return true;
    return input.startsWith('}}', pos);
  };
  const skipLeadingSpace = (): void => {
    while (isSpace(input[pos])) pos++;
  };

  for (;;) {
    // Text up to the next action.
    const x = input.indexOf('{{', pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) emit('text');
      tokens.push({ type: 'eof', val: '', pos });
      return tokens;
    }
    pos = x;
    let end = pos;
    if (hasLeftTrim(pos + 2)) while (end > start && isSpace(input[end - 1])) end--;
    if (end > start) tokens.push({ type: 'text', val: input.slice(start, end), pos: start });
    start = pos;
    // Left delimiter.
    pos += 2;
    const trimLeft = hasLeftTrim(pos);
    const afterMarker = trimLeft ? 2 : 0;
    if (input.startsWith('/*', pos + afterMarker)) {
      pos += afterMarker + 2;
      const close = input.indexOf('*/', pos);
      if (close < 0) fail('unclosed comment');
      pos = close + 2;
      const { delim, trim } = atRightDelim();
      if (!delim) fail('comment ends before closing delimiter');
      pos += (trim ? 2 : 0) + 2;
      if (trim) skipLeadingSpace();
      start = pos;
      continue;
    }
    emit('leftDelim');
    pos += afterMarker;
    start = pos;
    parenDepth = 0;
    // Inside the action.
    for (;;) {
      const { delim, trim } = atRightDelim();
      if (delim) {
        if (parenDepth !== 0) fail('unclosed left paren');
        if (trim) pos += 2;
        start = pos;
        pos += 2;
        emit('rightDelim');
        if (trim) {
          skipLeadingSpace();
          start = pos;
        }
        break;
      }
      const c = input[pos];
      if (c === undefined) return fail('unclosed action', pos);
      if (isSpace(c)) {
        let n = 0;
        while (isSpace(input[pos])) {
          pos++;
          n++;
        }
        if (input[pos - 1] !== undefined && input[pos] === '-' && input.startsWith('}}', pos + 1)) {
          pos--;
          if (n === 1) continue;
        }
        emit('space');
        continue;
      }
      pos++;
      if (c === '=') emit('assign');
      else if (c === ':') {
        if (input[pos] !== '=') fail('expected :=');
        pos++;
        emit('declare');
      } else if (c === '|') emit('pipe');
      else if (c === '"') {
        for (;;) {
          const d = input[pos++];
          if (d === '\\') {
            if (input[pos] === undefined || input[pos] === '\n') fail('unterminated quoted string');
            pos++;
          } else if (d === undefined || d === '\n') fail('unterminated quoted string');
          else if (d === '"') break;
        }
        emit('string');
      } else if (c === '`') {
        const close = input.indexOf('`', pos);
        if (close < 0) fail('unterminated raw quoted string');
        pos = close + 1;
        emit('rawString');
      } else if (c === '$') {
        lexFieldOrVariable('variable');
      } else if (c === "'") {
        for (;;) {
          const d = input[pos++];
          if (d === '\\') {
            if (input[pos] === undefined || input[pos] === '\n') fail('unterminated character constant');
            pos++;
          } else if (d === undefined || d === '\n') fail('unterminated character constant');
          else if (d === "'") break;
        }
        emit('charConstant');
      } else if (c === '.' && !(input[pos] !== undefined && input[pos]! >= '0' && input[pos]! <= '9')) {
        lexFieldOrVariable('field');
      } else if (c === '.' || c === '+' || c === '-' || (c >= '0' && c <= '9')) {
        pos--;
        if (!scanNumber()) fail(`bad number syntax: "${input.slice(start, pos)}"`);
        if (input[pos] === '+' || input[pos] === '-') fail('complex numbers are not supported');
        emit('number');
      } else if (isAlphaNumeric(c)) {
        while (isAlphaNumeric(input[pos])) pos++;
        const word = input.slice(start, pos);
        if (!atTerminator()) fail(`bad character ${JSON.stringify(input[pos])}`);
        if ((keywords as readonly string[]).includes(word)) emit(word as Keyword);
        else if (word === 'true' || word === 'false') emit('bool');
        else emit('identifier');
      } else if (c === '(') {
        parenDepth++;
        emit('leftParen');
      } else if (c === ')') {
        parenDepth--;
        if (parenDepth < 0) fail('unexpected right paren');
        emit('rightParen');
      } else if (c.charCodeAt(0) < 0x7f && c.charCodeAt(0) >= 0x20) emit('char');
      else fail(`unrecognized character in action: ${JSON.stringify(c)}`);
    }
  }

  function lexFieldOrVariable(type: 'field' | 'variable'): void {
    if (atTerminator()) {
      emit(type === 'variable' ? 'variable' : 'dot');
      return;
    }
    while (isAlphaNumeric(input[pos])) pos++;
    if (!atTerminator()) fail(`bad character ${JSON.stringify(input[pos])}`);
    emit(type);
  }

  function scanNumber(): boolean {
    const accept = (valid: string): boolean => {
      const c = input[pos];
      if (c !== undefined && valid.includes(c)) {
        pos++;
        return true;
      }
      return false;
    };
    const acceptRun = (valid: string): void => {
      while (accept(valid));
    };
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(input[pos])) {
      pos++;
      return false;
    }
    return true;
  }
}
