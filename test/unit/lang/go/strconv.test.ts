import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { quote, quoteBytes, quoteRune, unquote, UnquoteError } from '#shared/lang/go/strconv.ts';

describe('quote', () => {
  const cases: readonly { readonly name: string; readonly text: string; readonly want: string }[] = [
    { name: 'keeps printable text as it is', text: 'a b-c_ü漢😀', want: '"a b-c_ü漢😀"' },
    { name: 'escapes the quote and the backslash', text: 'a"b\\c', want: '"a\\"b\\\\c"' },
    { name: 'uses the named escapes Go has', text: '\x07\b\f\n\r\t\v', want: '"\\a\\b\\f\\n\\r\\t\\v"' },
    { name: 'escapes other ASCII controls as \\x', text: '\x00\x1b\x7f', want: '"\\x00\\x1b\\x7f"' },
    {
      name: 'escapes C1 controls and format characters as \\u',
      text: '\u0085\u00ad\u2028',
      want: '"\\u0085\\u00ad\\u2028"',
    },
    { name: 'escapes astral non-printables as \\U', text: '\u{e0001}', want: '"\\U000e0001"' },
    { name: 'prints a lone surrogate as U+FFFD, as Go sees it', text: 'a\ud800b', want: '"a\ufffdb"' },
    { name: "escapes runes assigned after Go's Unicode 15.0", text: '\u{1fae9}', want: '"\\U0001fae9"' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(quote(c.text), c.want));
});

describe('quoteBytes', () => {
  test('escapes each invalid UTF-8 byte as \\x', () => {
    assert.equal(quoteBytes(Uint8Array.of(0x61, 0xff, 0xed, 0xa0, 0x80, 0xc3, 0xa9)), '"a\\xff\\xed\\xa0\\x80é"');
  });
});

describe('quoteRune', () => {
  test('quotes a rune as a character literal', () => assert.equal(quoteRune(0x27), "'\\''"));
  test('quotes a number that is no rune as U+FFFD', () => assert.equal(quoteRune(0xd800), "'\ufffd'"));
});

describe('unquote', () => {
  test('decodes the escapes of a double-quoted literal', () => {
    assert.equal(unquote('"\\a\\x41\\101\\u00e9\\U0001F600\\""'), '\x07AAé😀"');
  });
  test('drops carriage returns from a raw literal', () => assert.equal(unquote('`a\r\nb`'), 'a\nb'));
  for (const bad of ['"\\q"', '"\\ud800"', '"a"b"', '"a\nb"', '`a`b`', 'x']) {
    test(`refuses ${JSON.stringify(bad)} as invalid syntax`, () => assert.throws(() => unquote(bad), UnquoteError));
  }
});
