import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeLabelSelectorMatch, parseLabelSelector } from '#shared/providers/desired/label-selector.ts';

const labels = Object.freeze({ app: 'capi', tier: 'web', n: '5' });

describe('parseLabelSelector and computeLabelSelectorMatch', () => {
  const cases: ReadonlyArray<{ selector: string; want: boolean }> = [
    { selector: '', want: true },
    { selector: 'app=capi', want: true },
    { selector: 'app==capi,tier=web', want: true },
    { selector: 'app!=capi', want: false },
    { selector: 'missing!=x', want: true },
    { selector: 'tier in (web, db)', want: true },
    { selector: 'tier notin (web)', want: false },
    { selector: 'app', want: true },
    { selector: '!app', want: false },
    { selector: 'n>3', want: true },
    { selector: 'n<3', want: false },
  ];
  for (const c of cases)
    test(`evaluates ${JSON.stringify(c.selector)} to ${c.want}`, () =>
      assert.equal(computeLabelSelectorMatch(parseLabelSelector(c.selector), labels), c.want));

  for (const bad of ['a in b', 'a=b c', 'n>x', '=x'])
    test(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => parseLabelSelector(bad)));
});
