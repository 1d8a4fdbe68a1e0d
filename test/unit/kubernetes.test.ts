/**
 * The Kubernetes manifests in deploy/kubernetes: valid against the Kubernetes schemas
 * (kubernetes-models' validators), and consistent with the service (probes, port, drain time,
 * user, settings it knows) and with each other (selectors, the Secret's keys, the pooler's size).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import type { IContainer } from 'kubernetes-models/v1';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = path.join(ROOT, 'deploy', 'kubernetes');

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

function manifests(file: string): Manifest[] {
  return parseAllDocuments(fs.readFileSync(path.join(DIR, file), 'utf8')).map((doc) => {
    assert.deepEqual(doc.errors, [], `${file} is valid YAML`);
    return doc.toJS() as Manifest;
  });
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 Secret': Secret,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};

const all = () => ['docsmith.yaml', 'pgbouncer.yaml', 'secret.example.yaml'].flatMap((file) => manifests(file).map((m) => ({ file, m })));
const find = (kind: string, name: string) => all().find(({ m }) => m.kind === kind && m.metadata.name === name)!.m as never;
const envOf = (container: IContainer) => new Map((container.env ?? []).map((e) => [e.name, e.value ?? '']));

describe('Kubernetes manifests', () => {
  it('are valid against the Kubernetes schemas, and the kustomization lists them all', () => {
    for (const { file, m } of all()) {
      const Model = MODELS[`${m.apiVersion} ${m.kind}`];
      assert.ok(Model, `${file}: ${m.apiVersion} ${m.kind} is one of the kinds checked here`);
      assert.doesNotThrow(() => new Model(m as never).validate(), `${file}: ${m.kind} ${m.metadata.name}`);
    }
    const [kustomization] = manifests('kustomization.yaml') as unknown as { resources: string[] }[];
    assert.deepEqual(
      [...kustomization!.resources].sort(),
      fs
        .readdirSync(DIR)
        .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
        .sort(),
    );
  });

  it("probe what the service answers, drain within the grace period, and run as the image's user", () => {
    const deployment = new Deployment(find('Deployment', 'docsmith'));
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0]!;
    const env = envOf(container);
    assert.equal(container.readinessProbe?.httpGet?.path, '/readyz');
    assert.equal(container.livenessProbe?.httpGet?.path, '/healthz', 'liveness must not depend on the database');
    assert.equal(container.startupProbe?.httpGet?.path, '/healthz');
    const port = container.ports!.find((p) => p.name === container.readinessProbe?.httpGet?.port)!;
    assert.equal(port.containerPort, 8080, "the service's default PORT");
    const preStop = Number(container.lifecycle?.preStop?.exec?.command?.at(-1) ?? 0);
    const drain = Number(env.get('DOCSMITH_SHUTDOWN_GRACE_MS')) / 1000;
    assert.ok(pod.terminationGracePeriodSeconds! >= preStop + drain + 5, 'time to stop taking requests, drain and exit before SIGKILL');
    assert.equal(
      deployment.spec!.strategy?.rollingUpdate?.maxUnavailable,
      0,
      'a rollout keeps every instance serving until its successor is ready',
    );
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    assert.match(dockerfile, new RegExp(`--uid ${pod.securityContext!.runAsUser}\\b`));
    // The image's version label says the release it is.
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(dockerfile, new RegExp(`^ARG VERSION=${version.replace(/\./g, '\\.')}$`, 'm'));
    assert.equal(pod.automountServiceAccountToken, false, 'no service-account token in the pod');
    assert.equal(env.get('DOCSMITH_OFFICE_SANDBOX'), 'required', 'the pod refuses to run the office without a sandbox');
    assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault', 'which leaves Landlock (bubblewrap needs user namespaces)');
    const cpus = Number(container.resources?.limits?.cpu);
    assert.ok(cpus >= 1, 'a CPU limit');
    assert.equal(Number(env.get('DOCSMITH_OFFICE_PROCESSES')), cpus, 'office processes follow the CPU limit');
    assert.equal(Number(env.get('DOCSMITH_DOCUMENT_THREADS')), cpus, 'document threads follow the CPU limit');
    assert.ok(
      pod.topologySpreadConstraints?.some((c) => c.topologyKey === 'kubernetes.io/hostname'),
      'instances spread over nodes',
    );
    for (const { m } of all().filter(({ m }) => m.kind === 'Deployment')) {
      const images = (new Deployment(m as never).spec!.template.spec!.containers ?? []).map((c) => c.image ?? '');
      for (const image of images) {
        assert.match(image, /:[^:/]+$/, `${image} names a tag`);
        assert.doesNotMatch(image, /:latest$/, `${image} is pinned`);
      }
    }
    const config = fs.readFileSync(path.join(ROOT, 'src', 'config.ts'), 'utf8');
    for (const name of env.keys())
      if (name.startsWith('DOCSMITH_'))
        assert.ok(config.includes(`'${name}'`) || config.includes(name), `${name} is a setting docsmith reads`);
  });

  it("match each other: selectors, the Secret's keys, and a pooler large enough for every instance during a rollout", () => {
    const deployment = new Deployment(find('Deployment', 'docsmith'));
    const labels = deployment.spec!.template.metadata!.labels!;
    const service = new Service(find('Service', 'docsmith'));
    const budget = new PodDisruptionBudget(find('PodDisruptionBudget', 'docsmith'));
    assert.deepEqual(service.spec!.selector, labels);
    assert.deepEqual(budget.spec!.selector!.matchLabels, labels);
    assert.equal(deployment.spec!.selector.matchLabels!['app.kubernetes.io/name'], labels['app.kubernetes.io/name']);
    const container = deployment.spec!.template.spec!.containers[0]!;
    assert.ok(container.ports!.some((p) => p.name === service.spec!.ports![0]!.targetPort));
    const secret = new Secret(find('Secret', container.envFrom![0]!.secretRef!.name!));
    assert.deepEqual(Object.keys(secret.stringData!).sort(), ['DOCSMITH_DATABASE_URL', 'DOCSMITH_SECRET']);

    const bouncer = new Deployment(find('Deployment', 'docsmith-pgbouncer'));
    const pooler = envOf(bouncer.spec!.template.spec!.containers[0]!);
    assert.equal(pooler.get('POOL_MODE'), 'transaction');
    const instances = deployment.spec!.replicas! + Number(deployment.spec!.strategy!.rollingUpdate!.maxSurge);
    // Each instance: its pool, one connection for /readyz, and one for migrations while it starts.
    assert.ok(Number(pooler.get('MAX_CLIENT_CONN')) >= instances * (Number(envOf(container).get('DOCSMITH_DATABASE_POOL')) + 2));
    assert.ok(
      new Secret(find('Secret', bouncer.spec!.template.spec!.containers[0]!.envFrom![0]!.secretRef!.name!)).stringData!.DATABASE_URL,
    );
  });
});
