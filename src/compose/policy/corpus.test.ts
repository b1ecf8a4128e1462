/**
 * The corpus against the policy itself, layer by layer and merged as a save checks them. The same
 * cases run through the API (save, deploy preview) and the daemon's check elsewhere (corpus/case.ts).
 */
import { describe, expect, test } from 'bun:test';
import { parseComposeText } from '../document.ts';
import { mergeCompose } from '../merge.ts';
import { validateCompose } from '../validate.ts';
import type { JsonObject } from '../values.ts';
import { POLICY_CASES, POLICY_CORPUS, type PolicyCase } from './corpus/index.ts';

const data = (layer: string | JsonObject): JsonObject => (typeof layer === 'string' ? parseComposeText(layer).data : layer);

/** What a save would refuse: the base, then the overlay against it, then the merged model. */
function saveRefusal(policyCase: PolicyCase, hostAccess: boolean): unknown {
  try {
    const base = data(policyCase.base);
    const { principals } = validateCompose(base, { policy: { hostAccess } });
    const overlay = policyCase.overlay === undefined ? undefined : data(policyCase.overlay);
    if (overlay !== undefined) validateCompose(overlay, { policy: { hostAccess }, knownPrincipals: principals });
    validateCompose(mergeCompose(base, overlay), { policy: { hostAccess } });
    return null;
  } catch (error) {
    return error;
  }
}

test('the corpus holds at least 150 documents, allowed and refused', () => {
  expect(POLICY_CASES.length).toBeGreaterThanOrEqual(150);
  expect(POLICY_CASES.filter((policyCase) => policyCase.refused === undefined).length).toBeGreaterThanOrEqual(50);
});

for (const [family, cases] of Object.entries(POLICY_CORPUS)) {
  describe(`policy corpus: ${family}`, () => {
    for (const policyCase of cases) {
      test(policyCase.name, () => {
        const refusal = saveRefusal(policyCase, false);
        if (policyCase.refused === undefined) {
          expect(refusal).toBeNull();
          return;
        }
        expect(refusal).toMatchObject({ code: 'compose_invalid', path: policyCase.refused });
        const withHostAccess = saveRefusal(policyCase, true);
        if (policyCase.always) expect(withHostAccess).toMatchObject({ code: 'compose_invalid', path: policyCase.refused });
        else expect(withHostAccess).toBeNull();
      });
    }
  });
}
