// The Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go): named string formats whose `validate`
// returns apimachinery's error messages, as `format.dns1123Label().validate(self)`.
import { Optional } from '@marcbachmann/cel-js';
import type { Environment } from '@marcbachmann/cel-js';
import { requestURIError } from '#shared/lang/cel/url.ts';
import { stringFormatChecker } from '#shared/lang/openapi/string-formats.ts';
import {
  goBytes,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isLabelKey,
  isLabelValue,
  maskTrailingDash,
} from '#shared/lang/openapi/apimachinery-validation.ts';

function strfmt(format: string, message: string): (value: string) => string[] {
  const checker = stringFormatChecker(format);
  return (value) => (checker?.(Buffer.from(value, 'latin1').toString('utf8')) ? [] : [message]);
}

/** A named format of the library: `validate` takes the string as Go bytes (latin1 here) and returns its errors. */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (value: string) => string[],
  ) {}
}

const formats: Readonly<Record<string, NamedFormat>> = {
  dns1123Label: new NamedFormat('DNS1123Label', isDNS1123Label),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', (s) => isDNS1123Subdomain(s)),
  dns1035Label: new NamedFormat('DNS1035Label', isDNS1035Label),
  qualifiedName: new NamedFormat('QualifiedName', isLabelKey),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => isDNS1123Label(maskTrailingDash(s))),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => isDNS1123Subdomain(maskTrailingDash(s))),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => isDNS1035Label(maskTrailingDash(s))),
  labelValue: new NamedFormat('LabelValue', isLabelValue),
  uri: new NamedFormat('URI', (s) => {
    const error = requestURIError(Buffer.from(s, 'latin1').toString('utf8'));
    return error === undefined ? [] : [error];
  }),
  uuid: new NamedFormat('uuid', strfmt('uuid', 'does not match the UUID format')),
  byte: new NamedFormat('byte', strfmt('byte', 'invalid base64')),
  date: new NamedFormat('date', strfmt('date', 'invalid date')),
  datetime: new NamedFormat('datetime', strfmt('datetime', 'invalid datetime')),
};

/** The names `format.named` knows, each also a function of `format` (`format.dns1123Label()`). */
export const namedFormats: readonly string[] = Object.keys(formats);

/**
 * Registers the Kubernetes format library: `format.<name>()` for each named format, `format.named(string)` (an
 * optional format) and `<format>.validate(string)` (none when valid, else the list of apimachinery's messages).
 *
 * @example
 * registerFormatLibrary(env).evaluate('format.dns1123Label().validate("a.b")'); // Optional.of(['must not contain dots'])
 */
export function registerFormatLibrary(env: Environment): Environment {
  class FormatNamespace {}
  let out = env
    .registerType('kubernetes.NamedFormat', NamedFormat)
    .registerType('FormatNamespace', FormatNamespace)
    .registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const name of namedFormats) {
    const named = formats[name] as NamedFormat;
    out = out.registerFunction(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => named);
  }
  return out
    .registerFunction('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_: unknown, name: string) =>
      Object.hasOwn(formats, name) ? Optional.of(formats[name]) : Optional.none(),
    )
    .registerFunction(
      'kubernetes.NamedFormat.validate(string): optional<list<string>>',
      (format: NamedFormat, value: string) => {
        const errors = format.validate(goBytes(value));
        return errors.length === 0 ? Optional.none() : Optional.of(errors);
      },
    );
}
