// fast-check arbitraries for the inputs of the Kubernetes CEL libraries (quantity, semver, ip, cidr): mostly
// well-formed values with the edge cases of Go's parsers (leading zeroes, out-of-range numbers, suffixes, zones,
// IPv4-mapped addresses), and some random text.
import fc from 'fast-check';

const digits = (max: number) => fc.stringMatching(new RegExp(`^[0-9]{0,${max}}$`));

/** Generated input. */
export const quantityString = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', '-', '+'),
        fc.oneof(digits(4), digits(22)),
        fc.option(digits(12), { nil: undefined }),
        fc.constantFrom(
          ...['', '', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'],
          ...['e3', 'e-12', 'E+5', 'e', 'K', 'i', 'mi', 'e99999999999999999999', 'e-20', 'e25', 'e-30', 'x'],
        ),
      )
      .map(([sign, int, frac, suffix]) => `${sign}${int}${frac === undefined ? '' : `.${frac}`}${suffix}`),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9.+\-eEinumkKMGTP x]{0,8}$/) },
);

/** Mostly valid, sometimes one of the inputs Go's parsers treat specially. */
function mostly<T>(valid: readonly T[], invalid: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid) },
  );
}

const semverPart = mostly(
  ['0', '1', '2', '3', '10', '18446744073709551615'],
  ['01', '007', '18446744073709551616', 'x', '', 'v1'],
);
/** Generated input. */
export const semverString = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '', 'v'),
        fc.oneof(
          { weight: 5, arbitrary: fc.array(semverPart, { minLength: 3, maxLength: 3 }) },
          fc.array(semverPart, { minLength: 1, maxLength: 4 }),
        ),
        fc.option(
          fc.array(mostly(['alpha', 'beta', '1', '2', 'a-b', 'rc'], ['01', '', 'é']), { minLength: 1, maxLength: 3 }),
          { freq: 2 },
        ),
        fc.option(fc.array(mostly(['build', '7', '001'], ['', 'a_b']), { minLength: 1, maxLength: 2 }), { freq: 3 }),
      )
      .map(
        ([v, parts, pre, build]) =>
          `${v}${parts.join('.')}${pre ? `-${pre.join('.')}` : ''}${build ? `+${build.join('.')}` : ''}`,
      ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9v.+\-a]{0,8}$/) },
);

const octet = mostly(['0', '1', '10', '127', '169', '192', '224', '254', '255'], ['256', '01', '']);
const hexGroup = mostly(
  ['0', '1', 'db8', '2001', 'fe80', 'ff02', 'ff05', 'FFFF', 'ffff', 'a', '0000'],
  ['00000', '10000', 'g', ''],
);
const ipv4 = fc
  .oneof(
    { weight: 6, arbitrary: fc.array(octet, { minLength: 4, maxLength: 4 }) },
    fc.array(octet, { minLength: 3, maxLength: 5 }),
  )
  .map((o) => o.join('.'));
const ipv6 = fc
  .tuple(fc.array(hexGroup, { minLength: 0, maxLength: 9 }), fc.nat(8), fc.boolean(), mostly([''], ['%eth0', '%']))
  .map(([groups, at, ellipsis, zone]) => {
    if (!ellipsis) return groups.join(':') + zone;
    const i = Math.min(at, groups.length);
    return `${groups.slice(0, i).join(':')}::${groups.slice(i).join(':')}${zone}`;
  });
/** Generated input. */
export const ipString = fc.oneof(
  { weight: 3, arbitrary: ipv4 },
  { weight: 3, arbitrary: ipv6 },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '::',
      '::1',
      '::ffff:1.2.3.4',
      '::ffff:0102:0304',
      '1.2.3.4%eth0',
      'fe80::1%eth0',
      '%1',
      '64:ff9b::1.2.3.4',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f:.%]{0,10}$/) },
);
/** Generated input. */
export const cidrString = fc
  .tuple(
    ipString,
    mostly(['/0', '/8', '/12', '/24', '/32', '/64', '/127', '/128'], ['/33', '/129', '/08', '/-1', '/+8', '/', '']),
  )
  .map(([ip, bits]) => ip + bits);

const urlParts = fc.tuple(
  mostly(
    ['http://', 'https://', 'HTTPS://', 'ftp://', 'x+y.z://', '/'],
    ['', 'http:', 'mailto:', '1x://', '://', 'http:///'],
  ),
  mostly(['', '', 'user@', 'u:p@'], ['u%zz@', 'a b@', 'u@v@']),
  mostly(
    ['example.com', 'EXAMPLE.com', '127.0.0.1', '[::1]', '[fe80::1%25eth0]', 'a-b.c'],
    ['[1.2.3.4]', 'a%20b', 'a_b', '%41', 'ex ample', 'é.com', '', '[::1', 'x[::1]', '[::ffff:1.2.3.4]'],
  ),
  mostly(['', '', ':80', ':8443'], [':', ':8a', ':80:90', ':-1']),
  mostly(['', '/', '/a/b', '/a%2Fb', '/*', '/a;b,c', '/%41'], ['/a b', '/%zz', '/é', 'a:b', '/%4']),
  mostly(['', '', '?a=1&b=2&a=3', '?a+b=c%20d', '?=v', '?k'], ['?', '?x;y', '?%zz=1&ok=1', '?a=%']),
  mostly(['', '', '#f'], ['#%zz', '#a b']),
);
/** Generated input. */
export const urlString = fc.oneof(
  { weight: 8, arbitrary: urlParts.map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9:/?#[\]@%.=&+ ]{0,12}$/) },
);

/** Strings for the format library: names near each format's length limits, labels, label keys, URIs, UUIDs, … */
export const formatInput = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'z', '0', '-', '.', '_', '/', 'A', 'é', ' ', ':'), maxLength: 12 }),
  fc.constantFrom(
    ...['', 'a', 'my-name', 'a.b', 'ab-', 'aé-', '-', 'a-', '1abc', 'example.com', 'a/b', '/b', 'a/', 'a/b/c'],
    ...['Example.com/Name', 'a.b/-x', 'http://a b', 'http://x/y?q', '/path', '*', 'a b', 'mailto:x', '//x', 'x\t'],
    ...['550e8400-e29b-41d4-a716-446655440000', '550E8400E29B41D4A716446655440000', '550e8400-e29b-41d4'],
    ...['aGVsbG8=', 'aGVsbG8', 'aGV=bG8=', '2020-01-01', '2020-02-30', '2020-01-01T00:00:00Z'],
    ...['2020-01-01T00:00:00.5+01:00', '2020-01-01 00:00:00', '2020-01-01T25:00:00Z'],
  ),
  fc
    .tuple(fc.constantFrom('a', '-', '.', 'é', 'a.', 'ab/'), fc.integer({ min: 30, max: 130 }))
    .map(([c, n]) => c.repeat(n)),
  fc.constantFrom(62, 63, 64, 252, 253, 254).map((n) => `${'a'.repeat(n - 4)}.com`),
);
