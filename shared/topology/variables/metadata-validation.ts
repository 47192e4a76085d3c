// Label and annotation checks (apimachinery's ValidateLabels / ValidateAnnotations) for variable metadata.
import type { FieldError } from '#shared/topology/variables/field-error.ts';
import { fieldInvalid, fieldTooLong } from '#shared/topology/variables/field-error.ts';

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/** Total size limit of annotations, in bytes. */
const totalAnnotationSizeLimitB = 256 * 1024;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number) => `must be no more than ${n} characters`;

function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRegexp.test(value))
    errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** apimachinery's IsQualifiedName: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0] ?? '';
  else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!labelValueRegexp.test(value))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Labels: qualified-name keys and label values; errors are reported at `path` itself, as upstream does. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(labels ?? {}).sort()) {
    for (const msg of isQualifiedName(key)) errors.push(fieldInvalid(path, key, msg));
    for (const msg of isValidLabelValue(labels?.[key] ?? '')) errors.push(fieldInvalid(path, labels?.[key] ?? '', msg));
  }
  return errors;
}

/** Annotations: case-insensitive qualified-name keys, at most 256 KiB in total. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  const encoder = new TextEncoder();
  for (const key of Object.keys(annotations ?? {}).sort()) {
    for (const msg of isQualifiedName(key.toLowerCase())) errors.push(fieldInvalid(path, key, msg));
    total += encoder.encode(key).length + encoder.encode(annotations?.[key] ?? '').length;
  }
  if (total > totalAnnotationSizeLimitB) errors.push(fieldTooLong(path, totalAnnotationSizeLimitB));
  return errors;
}
