// fast-check arbitraries for variable schemas with x-kubernetes-validations (CEL) rules, values and old values for
// them: rules that hold, fail, fail at run time (missing keys, division by zero), transition rules, messages,
// messageExpressions, reasons and fieldPaths, and rules that do not compile.
import fc from 'fast-check';
import type { JSONSchemaProps, ValidationRule } from '#shared/lang/openapi/jsonschema.ts';

/**
 * Rules that do not compile in any schema (syntax, undeclared names, unknown functions, not a bool, invalid or mixed
 * literals), or whose program cannot be built (a regexp literal of `find`).
 */
const brokenRules = [
  ...['self >', 'other == 1', 'self.(', '"x"', 'self.frobnicate()', '1 +', 'cel.bind(x, 1, x > 0)'],
  ...['self.matches("(")', '"abc".find("[") == ""', 'duration("1x") > duration("0s")', '[1, "a"].size() > 0'],
  ...['timestamp("2020-13-01T00:00:00Z") > timestamp("2000-01-01T00:00:00Z")', 'size({"a": 1, "b": 2.0}) > 0'],
];

type Kind = 'integer' | 'string' | 'object' | 'array' | 'map';

/** Rules whose types do not check, or only just check, with `self` typed from the schema as upstream types it. */
const typedRulesByKind: Record<Kind, readonly string[]> = {
  integer: ['size(self) > 0', 'self > "a"', 'self.startsWith("a")', 'self + 1.5 > 0', 'self == 1.0', 'self'],
  string: ['self > 1', 'self.all(x, true)', 'self + 1 == "a"', 'self in ["a", "b"]', '[self, "a"].size() == 2'],
  // NOTE: objects with properties are not typed here (docs/differences.md, "CEL rules"): `self.size()` is refused upstream only.
  object: ['has(self.a) && self.a >= 0 || !has(self.a)'],
  array: [
    'self.exists(x, x == "a")',
    'self[0].size() > 0',
    'self.all(x, x > 0.5)',
    '1 in self',
    '[self, [1]].size() > 0',
  ],
  map: ['self.all(k, k > 1)', 'self.p > 1', '"p" in self && self.p.size() > 1 || true', 'self.exists(k, v, v == 1)'],
};

/** Well-typed rules per kind of schema (the rule's `self` has that kind). */
const rulesByKind: Record<Kind, readonly string[]> = {
  integer: ['self > 2', 'self % 2 == 0', 'self >= oldSelf', 'self < 10 || self == 100', '10 / (self - 3) > 0'],
  string: [
    'self.startsWith("a")',
    'self.size() <= 2',
    'self.matches("^[a-z]+$")',
    'self.matches("(?i)^A")',
    'self.find("[[:digit:]]+") == ""',
    'self == oldSelf',
    'self.lowerAscii() == self',
    'self.contains("-")',
    '!self.endsWith("c")',
    'self.size() == 0 || self.charAt(0) != "x"',
    'self.replace("-", "") == self',
    'self.split("-").size() <= 1',
    'self.indexOf("b") != 1',
    'self.upperAscii() != "AB"',
    'self.substring(0, self.size()) == self',
    'self.reverse() != "ba"',
    'self.trim() == self',
    'self.lastIndexOf("b") < 2',
    'self.substring(1) != "b"',
    'self.indexOf("a", 2) < 0',
    'self.upperAscii() == self.upperAscii().lowerAscii().upperAscii()',
    'isQuantity(self)',
    '!isQuantity(self) || quantity(self).isLessThan(quantity("1Ki"))',
    'quantity(self).isInteger()',
    'isSemver(self, true)',
    'semver(self).major() < 2',
    'isIP(self) || isCIDR(self + "/8")',
    'ip(self).family() == 6',
    'isURL(self)',
    'url(self).getScheme() == "a"',
    'sets.contains(self.split(""), ["a"])',
    '!format.dns1123Label().validate(self).hasValue()',
  ],
  object: [
    'has(self.a)',
    '!has(self.b) || self.b.size() > 1',
    'self.a > 0',
    'has(self.a) == has(self.b)',
    '!has(self.a) || !has(oldSelf.a) || self.a >= oldSelf.a',
    'self == oldSelf',
  ],
  array: [
    'self.size() <= 2',
    'self.all(x, x > 0)',
    'self.exists(x, x == 1)',
    'self.isSorted()',
    'self.sum() < 10',
    'size(self) == size(oldSelf)',
    'self.exists_one(x, x == 2)',
    'self.filter(x, x > 3).size() < 2',
    'self.map(x, x * 2).all(y, y < 20)',
    'self.size() == 0 || self.min() >= 0',
    'self.size() == 0 || self.max() < 10',
    'self.indexOf(1) != 0',
    'self.lastIndexOf(2) < 2',
    'self.all(i, v, v >= i - 5)',
    'self.transformList(i, v, v * 2).all(x, x < 20)',
    'self.sortBy(x, -x) == self || self.size() > 1',
    'self.first().optMap(x, x > 0).orValue(true)',
  ],
  map: [
    'self.all(k, k != "q")',
    'self.exists(k, v, k == "p" && v.size() > 1) || size(self) == 0',
    'self.transformMap(k, v, v.size()).all(k, k != "q")',
    'size(self) < 2',
    '!("p" in self) || self.p != "ab"',
  ],
};

// NOTE: no string(...) of a number: upstream's static cost estimate rejects it in a messageExpression (its size is
// unbounded), and that estimate is not re-implemented here (docs/differences.md, "CEL rules").
const messageExpressions: Record<Kind, readonly string[]> = {
  integer: ['self > 100 ? "far too big" : "too small"', '""', '10 / (self - self) > 1 ? "x" : "y"'],
  string: ['"bad " + self', '"  "', 'format.qualifiedName().validate(self).orValue(["fine"])[0]'],
  object: ['has(self.b) ? "object with b " + self.b : "object without b"'],
  array: ['size(self) > 1 ? "long list" : "short list"'],
  map: ['size(self) > 1 ? "many keys" : "few keys"'],
};

function rule(kind: Kind): fc.Arbitrary<ValidationRule> {
  const text = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...rulesByKind[kind]) },
    { weight: 1, arbitrary: fc.constantFrom(...brokenRules) },
    { weight: 2, arbitrary: fc.constantFrom(...typedRulesByKind[kind]) },
  );
  return fc
    .record(
      {
        rule: text,
        message: fc.constantFrom('is not valid', ' padded message '),
        messageExpression: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...messageExpressions[kind]) },
          { weight: 1, arbitrary: fc.constant('"a" +') },
        ),
        reason: fc.constantFrom(
          'FieldValueInvalid',
          'FieldValueForbidden',
          'FieldValueRequired',
          'FieldValueDuplicate',
        ),
        fieldPath: kind === 'object' ? fc.constantFrom('.a', '.b') : fc.constant('.a'),
      },
      { requiredKeys: ['rule'] },
    )
    .filter((r) => kind === 'object' || r.fieldPath === undefined);
}

function rules(kind: Kind): fc.Arbitrary<ValidationRule[]> {
  return fc.array(rule(kind), { minLength: 1, maxLength: 2 }).map((list) =>
    // upstream lists rules as a map keyed by rule
    list.filter((r, i) => list.findIndex((s) => s.rule === r.rule) === i),
  );
}

function withRules(schema: JSONSchemaProps, kind: Kind): fc.Arbitrary<JSONSchemaProps> {
  return fc
    .option(rules(kind), { freq: 4 })
    .map((list) => (list ? { ...schema, 'x-kubernetes-validations': list } : schema));
}

const integerSchema = withRules({ type: 'integer' }, 'integer');
// NOTE: strings, lists and maps are bounded (maxLength, maxItems, maxProperties) so that upstream's static cost
// estimate stays under its limits: the estimate is not re-implemented here (docs/differences.md, "CEL rules").
const stringSchema = withRules({ type: 'string', maxLength: 5 }, 'string');

/** A variable schema with rules at the root and on nested fields, list items and map values. */
export const celSchema: fc.Arbitrary<JSONSchemaProps> = fc.oneof(
  integerSchema,
  stringSchema,
  fc
    .tuple(integerSchema, stringSchema)
    .chain(([a, b]) => withRules({ type: 'object', properties: { a, b } }, 'object')),
  integerSchema.chain((items) => withRules({ type: 'array', items, maxItems: 3 }, 'array')),
  stringSchema.chain((additionalProperties) =>
    withRules({ type: 'object', additionalProperties, maxProperties: 3 }, 'map'),
  ),
);

const strings = fc.constantFrom(
  ...['', 'a', 'ab', 'abc', 'A-b', 'x-y', 'é', 'É😀b', '😀ab'],
  ...['1Gi', '500m', '1.2.3', '::1', 'a:/b'],
);
const integers = fc.integer({ min: -2, max: 12 });

/** A value that fits the schema (CEL rules run only on values the OpenAPI schema accepts). */
export function celValueFor(schema: JSONSchemaProps): fc.Arbitrary<unknown> {
  if (schema.type === 'integer') return integers;
  if (schema.type === 'string') return strings;
  if (schema.type === 'array') return fc.array(integers, { maxLength: 3 });
  if (schema.additionalProperties) return fc.dictionary(fc.constantFrom('p', 'q'), strings, { maxKeys: 2 });
  return fc.record({ a: integers, b: strings }, { requiredKeys: [] });
}

/** A schema, a value for it and, some of the time, an old value (an update). */
export const celSchemaValueAndOld: fc.Arbitrary<[JSONSchemaProps, unknown, unknown]> = celSchema.chain((schema) =>
  fc.tuple(fc.constant(schema), celValueFor(schema), fc.option(celValueFor(schema), { freq: 2 })),
);

/** A schema with a default, an example and enum values taken from values that may fail its rules. */
export const celSchemaWithSamples: fc.Arbitrary<JSONSchemaProps> = celSchema.chain((schema) =>
  fc
    .record(
      {
        default: celValueFor(schema),
        example: celValueFor(schema),
        enum: fc.array(celValueFor(schema), { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((samples) => {
      const { enum: values, ...given } = samples;
      // NOTE: upstream validates a root default as a resource root, where a map's entries are hidden from its
      // rules' iteration but not from size(); that quirk is not reproduced (docs/differences.md, "CEL rules").
      const rootMapWithRules = schema.additionalProperties && schema['x-kubernetes-validations'];
      const { default: _default, ...withoutDefault } = given;
      const rest = rootMapWithRules ? withoutDefault : given;
      // enum values must be distinct and contain the example and the default, or the schema fails before CEL runs
      if (!values) return { ...schema, ...rest };
      const all = [
        ...values,
        ...('default' in rest ? [rest.default] : []),
        ...('example' in rest ? [rest.example] : []),
      ];
      const unique = all.filter((v, i) => all.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
      return { ...schema, ...rest, enum: unique };
    }),
);
