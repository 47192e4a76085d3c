import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTemplate, TemplateExecError } from '#shared/lang/gotemplate/index.ts';
import { PatchValueError, renderValueTemplate } from '#shared/topology/patches/generate-json-patches.ts';

/** A bound generous for a loaded CI machine; today's main runs these for minutes or runs out of memory. */
const BOUND_MS = 10_000;

type Case = { name: string; template: string; error: RegExp };

const cases: Case[] = [
  {
    name: 'refuses until of a hundred million before building the list',
    template: '{{ range until 100000000 }}x{{ end }}',
    error: /error calling until: a list of 100000000 elements exceeds the template limit of 100000$/,
  },
  {
    name: 'refuses untilStep over too many elements',
    template: '{{ untilStep 0 100000000 1 }}',
    error: /error calling untilStep: a list of 100000000 elements exceeds the template limit of 100000$/,
  },
  {
    name: 'refuses a range over a huge integer',
    template: '{{ range 100000000 }}{{ end }}',
    error: /range over 100000000 exceeds the template limit of 100000 iterations$/,
  },
  {
    name: 'stops nested ranges at the step limit',
    template: '{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}',
    error: /template execution exceeded the limit of 250000 steps$/,
  },
  {
    name: 'refuses repeat past the size limit before building the string',
    template: '{{ repeat 100000000 "ab" }}',
    error: /error calling repeat: a string of 200000000 characters exceeds the template limit of 3145728$/,
  },
  {
    name: 'stops a string doubled in a loop',
    template: '{{ $s := "xx" }}{{ range until 40 }}{{ $s = cat $s $s }}{{ end }}{{ $s }}',
    error: /error calling cat: a value of more than 3145728 characters exceeds the template limit$/,
  },
  {
    name: 'stops a list that nests itself twice before it is printed',
    template: '{{ $l := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}',
    error: /error calling list: a value of more than 3145728 characters exceeds the template limit$/,
  },
  {
    name: 'refuses indent past the size limit',
    template: '{{ indent 100000000 "a\\nb" }}',
    error: /error calling indent: a string of 200000003 characters exceeds the template limit of 3145728$/,
  },
  {
    name: 'stops output past the size limit',
    template: '{{ $s := repeat 1000000 "x" }}{{ range until 10 }}{{ $s }}{{ end }}',
    error: /template output exceeded the limit of 3145728 characters$/,
  },
];

describe('Go template limits', () => {
  for (const c of cases) {
    test(c.name, () => {
      const started = performance.now();
      assert.throws(
        () => renderTemplate('tpl', c.template, {}),
        (err: unknown) => err instanceof TemplateExecError && c.error.test(err.message),
      );
      const ms = performance.now() - started;
      assert.ok(ms < BOUND_MS, `took ${ms} ms`);
    });
  }

  test('a patch template over the limit fails as a patch value error naming the template', () => {
    const template = '{{ range until 100000000 }}x{{ end }}';
    assert.throws(
      () => renderValueTemplate(template, new Map()),
      (err: unknown) =>
        err instanceof PatchValueError &&
        err.message.startsWith(`failed to render template: ${JSON.stringify(template)}: template: tpl:1:`) &&
        err.message.endsWith('error calling until: a list of 100000000 elements exceeds the template limit of 100000'),
    );
  });

  test('templates a real ClusterClass uses stay well within the limits', () => {
    const template =
      '{{ range $i := until 1000 }}- name: worker-{{ $i }}\n  labels: {{ toJson (dict "index" $i) }}\n{{ end }}';
    const out = renderTemplate('tpl', template, {});
    assert.equal(out.split('\n').length, 2001);
  });
});
