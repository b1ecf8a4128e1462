import type { PolicyCase } from './case.ts';
import { PATH_CASES } from './paths.ts';
import { PLATFORM_CASES, RESOURCE_CASES } from './resources.ts';
import { ALLOWED_SERVICE_CASES, HOST_SERVICE_CASES } from './services.ts';
import { ANCHOR_CASES, INTERPOLATION_CASES, JSON_CASES, TAG_CASES } from './syntax.ts';

export type { PolicyCase };

/** The whole corpus, by family. */
export const POLICY_CORPUS: Record<string, PolicyCase[]> = {
  'allowed service settings': ALLOWED_SERVICE_CASES,
  'service settings that reach the host': HOST_SERVICE_CASES,
  'host paths': PATH_CASES,
  'networks, volumes, secrets, configs': RESOURCE_CASES,
  'owned by the platform': PLATFORM_CASES,
  'anchors and merge keys': ANCHOR_CASES,
  '!reset and !override': TAG_CASES,
  '$VAR interpolation': INTERPOLATION_CASES,
  'JSON data bodies': JSON_CASES,
};

export const POLICY_CASES: PolicyCase[] = Object.values(POLICY_CORPUS).flat();
