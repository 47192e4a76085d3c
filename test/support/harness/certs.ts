// A throwaway PKI for one control plane: CA, serving certificate for 127.0.0.1, admin client certificate
// (system:masters) and the service-account signing key. Made with the openssl CLI.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Pki = {
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
};

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Writes a PKI into `dir` and returns the file paths. */
export function createPki(dir: string): Pki {
  const p = (f: string) => join(dir, f);
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=capi-serverless-test-ca',
    ],
    dir,
  );
  const issue = (name: string, subj: string, ext: string) => {
    writeFileSync(p(`${name}.ext`), ext);
    openssl(
      [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        subj,
      ],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  };
  issue('serving', '/CN=kube-apiserver', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('admin', '/O=system:masters/CN=admin', 'extendedKeyUsage=clientAuth\n');
  openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return {
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    servingCert: p('serving.crt'),
    servingKey: p('serving.key'),
    adminCert: p('admin.crt'),
    adminKey: p('admin.key'),
    serviceAccountKey: p('sa.key'),
    serviceAccountPub: p('sa.pub'),
  };
}

/**
 * Issues a certificate signed by the PKI's CA into `dir` (`<name>.crt`, `<name>.key`): a loopback serving
 * certificate (webhook servers) or a client certificate whose CN is the user name and whose O entries are its groups.
 */
export function issueCertificate(
  pki: Pki,
  dir: string,
  name: string,
  usage: { serving: true; dnsNames?: readonly string[] } | { user: string; groups?: readonly string[] },
): { cert: string; key: string } {
  const subj =
    'serving' in usage ? `/CN=${name}` : [...(usage.groups ?? []).map((g) => `/O=${g}`), `/CN=${usage.user}`].join('');
  const sans = [
    'IP:127.0.0.1',
    'DNS:localhost',
    ...('serving' in usage ? (usage.dnsNames ?? []) : []).map((n) => `DNS:${n}`),
  ];
  const ext =
    'serving' in usage
      ? `subjectAltName=${sans.join(',')}\nextendedKeyUsage=serverAuth\n`
      : 'extendedKeyUsage=clientAuth\n';
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subj,
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      pki.caCert,
      '-CAkey',
      pki.caKey,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

/** A kubeconfig with the admin client certificate embedded, as Cluster API writes `<cluster>-kubeconfig` Secrets. */
export function renderKubeconfig(
  clusterName: string,
  server: string,
  pki: Pick<Pki, 'caCert' | 'adminCert' | 'adminKey'>,
): string {
  const b64 = (file: string) => readFileSync(file).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${clusterName}`,
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(pki.caCert)}`,
    'users:',
    `- name: ${clusterName}-admin`,
    '  user:',
    `    client-certificate-data: ${b64(pki.adminCert)}`,
    `    client-key-data: ${b64(pki.adminKey)}`,
    'contexts:',
    `- name: ${clusterName}-admin@${clusterName}`,
    '  context:',
    `    cluster: ${clusterName}`,
    `    user: ${clusterName}-admin`,
    `current-context: ${clusterName}-admin@${clusterName}`,
    '',
  ].join('\n');
}
