import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';
import { formatFieldErrors, validateClusterVariables } from '#shared/topology/variables/index.ts';
import { deepFreeze, definition, value } from '#test/support/fixtures/topology/variables.ts';

const P = 'spec.topology.variables[v].value';

/** Validates `v` against `schema` as variable "v": the formatted messages and how long it took. */
function timedCheck(schema: JSONSchemaProps, v: unknown): { messages: string[]; ms: number } {
  const started = performance.now();
  const messages = formatFieldErrors(validateClusterVariables([value('v', v)], [definition('v', deepFreeze(schema))]));
  return { messages, ms: performance.now() - started };
}

const intList = (rule: string): JSONSchemaProps => ({
  type: 'array',
  items: { type: 'integer' },
  'x-kubernetes-validations': [{ rule }],
});

const callCostExceeded = (rule: string) =>
  `${P}: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`;

/** A bound generous for a loaded CI machine; today's main runs these for minutes or runs out of memory. */
const BOUND_MS = 10_000;

describe('CEL runtime cost', () => {
  const large = Array.from({ length: 100_000 }, (_, i) => i);

  test('stops a quadratic rule over a 100,000-element list at the per-call limit', () => {
    const rule = 'self.all(x, self.exists(y, y == x))';
    const { messages, ms } = timedCheck(intList(rule), large);
    assert.ok(messages.length === 1, JSON.stringify(messages));
    assert.ok(messages[0]?.startsWith(`${P}: Invalid value: `), messages[0]);
    assert.ok(
      messages[0]?.endsWith(
        "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.exists(y, y == x))",
      ),
      messages[0],
    );
    assert.ok(ms < BOUND_MS, `took ${ms} ms`);
  });

  test('refuses lists.range of a billion as cel-go does, and stops one of a million at the per-call limit', () => {
    const billion = 'lists.range(1000000000).size() > 0';
    assert.deepEqual(timedCheck(intList(billion), [1]).messages, [
      `${P}: Invalid value: "[1]": lists.range: size 1000000000 exceeds maximum allowed (1000000) evaluating rule: ${billion}`,
    ]);
    const million = 'lists.range(1000000).size() > 0';
    const { messages, ms } = timedCheck(intList(million), [1]);
    assert.deepEqual(messages, [callCostExceeded(million).replace('"array"', '"[1]"')]);
    assert.ok(ms < BOUND_MS, `took ${ms} ms`);
  });

  test('stops a replacement that squares a string before it is built', () => {
    const rule = 'self.replace("", self).size() > 0';
    const schema: JSONSchemaProps = { type: 'string', 'x-kubernetes-validations': [{ rule }] };
    const long = 'x'.repeat(100_000);
    const { messages, ms } = timedCheck(schema, long);
    assert.equal(messages.length, 1);
    assert.ok(messages[0]?.includes('call cost exceeds limit for rule: self.replace("", self).size() > 0'));
    assert.ok(ms < BOUND_MS, `took ${ms} ms`);
  });

  test('accepts a linear rule over a 100,000-element list (well under the limit, as upstream)', () => {
    const { messages } = timedCheck(intList('self.all(x, x >= 0)'), large);
    assert.deepEqual(messages, []);
  });

  test('stops rules on items once the value runs out of its cost budget', () => {
    const needle = 'x'.repeat(9_990);
    const schema: JSONSchemaProps = {
      type: 'array',
      items: { type: 'string', 'x-kubernetes-validations': [{ rule: `!self.contains('${needle}')` }] },
    };
    const items = Array.from({ length: 200 }, () => 'y'.repeat(999));
    const { messages, ms } = timedCheck(schema, items);
    assert.equal(messages.length, 1, JSON.stringify(messages.map((m) => m.slice(0, 200))));
    assert.match(
      messages[0] ?? '',
      /^spec\.topology\.variables\[v\]\.value\[\d+\]: Invalid value: ".*": validation failed due to running out of cost budget, no further validation rules will be run$/,
    );
    assert.ok(ms < BOUND_MS, `took ${ms} ms`);
  });
});

describe('CEL cost meter probe', () => {
  test('is not a function rules can call', () => {
    const schema: JSONSchemaProps = { type: 'integer', 'x-kubernetes-validations': [{ rule: 'celCostMeterProbe()' }] };
    const { messages } = timedCheck(schema, 1);
    assert.equal(messages.length, 1);
    assert.match(messages[0] ?? '', /rule compile error: compilation failed: /);
  });
});
