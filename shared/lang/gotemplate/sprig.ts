// The function map of sprig.HermeticTxtFuncMap() (Masterminds/sprig v3), which Cluster API gives ClusterClass
// patch templates. Functions that need time, randomness or key material are listed but fail with a clear error.
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { collectionFuncs } from './sprig-collections.ts';
import { encodingFuncs } from './sprig-encoding.ts';
import { mathFuncs } from './sprig-math.ts';
import { semverFuncs } from './sprig-semver.ts';
import { stringFuncs } from './sprig-strings.ts';

/** Names in sprig's hermetic map that this evaluator does not implement (dates, randomness, crypto, text wrapping). */
export const unsupportedSprigFuncs = [
  'ago',
  'duration',
  'durationRound',
  'mustDateModify',
  'must_date_modify',
  'mustToDate',
  'toDate',
  'unixEpoch',
  'shuffle',
  'snakecase',
  'camelcase',
  'kebabcase',
  'wrap',
  'wrapWith',
  'sha512sum',
  'randInt',
  'urlParse',
  'urlJoin',
  'bcrypt',
  'htpasswd',
  'genPrivateKey',
  'derivePassword',
  'buildCustomCert',
  'genCA',
  'genCAWithKey',
  'genSelfSignedCert',
  'genSelfSignedCertWithKey',
  'genSignedCert',
  'genSignedCertWithKey',
  'encryptAES',
  'decryptAES',
] as const;

const unsupported = (name: string): GoFunc =>
  fn(
    [],
    () => {
      throw new FuncError(`sprig function "${name}" is not supported by capi-serverless's template evaluator`);
    },
    'any',
  );

/** sprig.HermeticTxtFuncMap(). */
export const hermeticSprigFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ...stringFuncs,
  ...collectionFuncs,
  ...mathFuncs,
  ...encodingFuncs,
  ...semverFuncs,
  ...unsupportedSprigFuncs.map((name): [string, GoFunc] => [name, unsupported(name)]),
]);
