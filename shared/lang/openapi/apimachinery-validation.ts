// apimachinery's name and label validators (k8s.io/apimachinery v0.36.3: util/validation and api/validate/content)
// with their messages, on Go strings: UTF-8 bytes, one character each (`goBytes`).

/** A string as Go's bytes, one character per byte (latin1), so that lengths count bytes as Go's len does. */
export const goBytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** apimachinery's RegexError (both packages word it the same). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

// NOTE: util/validation counts characters in its message, api/validate/content (label keys and values) bytes; both
// compare byte lengths, so the functions below take Go strings: UTF-8 bytes, one character each.
const maxLenError = (n: number) => `must be no more than ${n} characters`;
const contentMaxLenError = (n: number) => `must be no more than ${n} bytes`;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRegexp.test(value))
    errs.push(
      dns1123SubdomainRegexp.test(value)
        ? 'must not contain dots'
        : regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'),
    );
  return errs;
}

export function isDNS1123Subdomain(value: string, maxLen: (n: number) => string = maxLenError): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!dns1123SubdomainRegexp.test(value))
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** api/validate/content's IsLabelKey (util/validation's IsQualifiedName): `[prefix/]name`. */
export function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2)
    return [
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  const [prefix, name = ''] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix === '') errs.push('prefix part must be non-empty');
  else if (prefix !== undefined)
    errs.push(...isDNS1123Subdomain(prefix, contentMaxLenError).map((m) => `prefix part ${m}`));
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${contentMaxLenError(63)}`);
  if (!labelKeyRegexp.test(name))
    errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(contentMaxLenError(63));
  if (!labelValueRegexp.test(value))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** apimachinery's maskTrailingDash, on bytes: a generated name's prefix may end with a dash. */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}
