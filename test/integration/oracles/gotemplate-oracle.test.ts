// Property test: our Go text/template + sprig evaluator against Go's own text/template with
// sprig.HermeticTxtFuncMap(), run by the Go oracle. Byte-identical output, or the same error class (parse or exec).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TemplateExecError, TemplateParseError, renderTemplate } from '#shared/lang/gotemplate/index.ts';
import type { TemplateOptions } from '#shared/lang/gotemplate/index.ts';
import { data, template } from '#test/support/oracles/gotemplate-arbitraries.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle, TemplateRequest } from '#test/support/oracles/go-oracle.ts';

// ---- comparison -----------------------------------------------------------------------------------------------
type Outcome = { readonly output: string } | { readonly phase: 'parse' | 'exec'; readonly detail: string };

function renderTs(req: TemplateRequest): Outcome {
  const options: TemplateOptions = {
    functions: req.functions ?? 'sprig',
    ...(req.missingKey === undefined ? {} : { missingKey: req.missingKey }),
  };
  try {
    return { output: renderTemplate(req.name, req.text, structuredClone(req.data), options) };
  } catch (err) {
    if (err instanceof TemplateParseError) return { phase: 'parse', detail: err.message };
    if (err instanceof TemplateExecError) return { phase: 'exec', detail: err.message };
    throw err;
  }
}

/** sprig functions our evaluator rejects by name (docs/differences.md): their results are not compared. */
const unsupportedCall = /\b(toDate|ago|duration|snakecase|camelcase|kebabcase|wrap|sha512sum|randInt|shuffle)\b/;

async function agree(go: GoOracle, req: TemplateRequest): Promise<void> {
  const want = await go.ask(req);
  // NOTE: a map merged or set into itself makes Go's fmt overflow the stack, a fatal error that kills upstream's
  // controller as it kills the oracle; there is no Go answer to compare with.
  fc.pre(!('crashed' in want));
  // NOTE: Go strings are bytes and may hold invalid UTF-8 (trunc/substr inside a character); JavaScript strings
  // cannot, so such outputs are a deliberate difference and skipped.
  fc.pre(!('invalidUTF8' in want && want.invalidUTF8));
  const got = renderTs(req);
  if ('output' in want) {
    assert.ok(
      'output' in got,
      `Go renders ${JSON.stringify(want.output)}, we fail: ${'detail' in got ? got.detail : ''}`,
    );
    assert.equal(got.output, want.output);
  } else {
    assert.ok(
      'phase' in got,
      `Go fails (${want.phase}): ${want.detail}; we render ${JSON.stringify('output' in got ? got.output : '')}`,
    );
    assert.equal(got.phase, want.phase, `Go: ${want.detail}; we: ${got.detail}`);
  }
}

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

describe('Go text/template + sprig oracle', () => {
  test('valueFrom.template / enabledIf: same output or same error class as Go with sprig', async () => {
    await fc.assert(
      fc.asyncProperty(template, data, async (text, d) => {
        fc.pre(!unsupportedCall.test(text));
        await agree(go, { op: 'template', name: 'tpl', text, data: d });
      }),
      oracleRunSettings(400),
    );
  });

  test('naming templates: builtins only, missingkey=error, like upstream names.go', async () => {
    const nameData = fc.record({
      cluster: fc.record({ name: fc.constantFrom('c1', 'my-cluster', '') }),
      random: fc.constantFrom('abcde', 'x1y2z'),
      machineDeployment: fc.record({ topologyName: fc.constantFrom('md-0', 'workers') }, { requiredKeys: [] }),
    });
    await fc.assert(
      fc.asyncProperty(template, nameData, async (text, d) => {
        await agree(go, {
          op: 'template',
          name: 'template name generator',
          text,
          data: d,
          functions: 'builtin',
          missingKey: 'error',
        });
      }),
      oracleRunSettings(200),
    );
  });
});
