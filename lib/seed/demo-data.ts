/**
 * The demo organisation: realistic cookbooks, policies and their revisions,
 * built deterministically so tests can rely on them.
 */
import { createHash } from 'node:crypto';
import { computeRevisionId, type PolicyLock } from '@/lib/domain';
import { demoBagCookbookFiles } from './demo-data-bags-cookbook';

export const DEMO_PASSWORD = 'demo-password';

/** Issue 41: dev and qa take nodes from the plain validator (open enrollment); staging and production need their stage validator. */
export const DEMO_STAGES = [
  { name: 'dev', position: 0, description: 'Integration: every merge lands here first', openEnrollment: true },
  { name: 'qa', position: 1, description: 'Automated acceptance and load tests', openEnrollment: true },
  { name: 'staging', position: 2, description: 'Production-like, customer-facing dry runs', requireArtifacts: true },
  { name: 'production', position: 3, description: 'Live fleet', requireArtifacts: true },
] as const;

/**
 * The files of a small generated cookbook standing in for a demo cookbook
 * version, so the demo's revisions have real artifacts (metadata, a recipe,
 * attributes, a template and a README).
 */
export function demoCookbookFiles(name: string, version: string, deps: [string, string][] = []): Record<string, string> {
  return {
    'metadata.rb': [`name '${name}'`, `version '${version}'`, `maintainer 'Policy Console demo'`, `license 'Apache-2.0'`, ...deps.map(([d, c]) => `depends '${d}', '${c}'`), ''].join('\n'),
    'README.md': `# ${name} ${version}\n\nA generated stand-in for the demo organisation.\n`,
    'attributes/default.rb': `default['${name}']['enabled'] = true\ndefault['${name}']['version'] = '${version}'\n`,
    'recipes/default.rb': `# ${name} ${version}\nlog '${name} ${version} converged' do\n  level :info\nend\n\ntemplate '/etc/${name}.conf' do\n  source '${name}.conf.erb'\n  variables(version: '${version}')\n  only_if { node['${name}']['enabled'] }\nend\n`,
    [`templates/${name}.conf.erb`]: `# managed by Chef\n${name}_version=<%= @version %>\n`,
    ...demoBagCookbookFiles(name, version),
  };
}

/** The dependencies the demo catalog gives a cookbook version. */
export function demoDependencies(name: string, version: string): [string, string][] {
  return CATALOG[name]?.find((c) => c.version === version)?.deps ?? [];
}

export const DEMO_TEAMS = [
  { name: 'core', description: 'Platform baseline: OS, access, time, packages' },
  { name: 'dba', description: 'Databases and caches' },
  { name: 'monitoring', description: 'Metrics, logs and alerting agents' },
  { name: 'web', description: 'Web tier and application delivery' },
] as const;

export type DemoUser = {
  email: string;
  name: string;
  /** The Chef user name (knife's node_name). */
  chefName: string;
  isAdmin?: boolean;
  teams: string[];
  grants: Partial<Record<(typeof DEMO_STAGES)[number]['name'], 'view' | 'promote' | 'manage'>>;
};

export const DEMO_USERS: DemoUser[] = [
  { email: 'admin@example.com', chefName: 'admin', name: 'Ada Admin', isAdmin: true, teams: ['core'], grants: {} },
  {
    email: 'release@example.com',
    chefName: 'release',
    name: 'Rene Release',
    teams: [],
    grants: { dev: 'view', qa: 'view', staging: 'promote', production: 'promote' },
  },
  { email: 'dev@example.com', chefName: 'dev', name: 'Dana Developer', teams: ['web'], grants: { dev: 'promote', qa: 'promote', staging: 'view', production: 'view' } },
  { email: 'viewer@example.com', chefName: 'viewer', name: 'Victor Viewer', teams: [], grants: { dev: 'view', qa: 'view', staging: 'view', production: 'view' } },
  { email: 'dba@example.com', chefName: 'dba', name: 'Dora DBA', teams: ['dba'], grants: { dev: 'promote', qa: 'promote', staging: 'view', production: 'view' } },
  { email: 'ops@example.com', chefName: 'ops', name: 'Otto Ops', teams: ['monitoring'], grants: { dev: 'promote', qa: 'view', staging: 'view', production: 'view' } },
  /** Issue 15: approves changes into staging and production (an approver grant, not a stage level). */
  { email: 'lead@example.com', chefName: 'lead', name: 'Lee Lead', teams: [], grants: { dev: 'view', qa: 'view', staging: 'view', production: 'view' } },
];

/**
 * Issue 15: guarded stages in the demo. Production needs approval by the
 * issue's rules (any change 1; major bump, run-list change, security/authorization
 * attributes, a newly claimed core resource 2); staging one approval for major
 * bumps only. lead@ and admin@ approve both (admins approve only when granted).
 */
export const DEMO_PROTECTION: Record<string, { approvalsRequired: number; rules: import('@/lib/domain').ApprovalRule[]; approvers: string[] }> = {
  staging: { approvalsRequired: 0, rules: [{ kind: 'major_bump', approvals: 1 }], approvers: ['lead@example.com', 'admin@example.com'] },
  production: {
    approvalsRequired: 0,
    rules: [
      { kind: 'any_change', approvals: 1 },
      { kind: 'major_bump', approvals: 2 },
      { kind: 'run_list_change', approvals: 2 },
      { kind: 'attribute_path', approvals: 2, patterns: ['security.*', 'authorization.*'] },
      { kind: 'core_resource_claim', approvals: 2 },
    ],
    approvers: ['lead@example.com', 'admin@example.com'],
  },
};

type Dep = [string, string];
interface CookbookVersion {
  version: string;
  deps?: Dep[];
}

const CATALOG: Record<string, CookbookVersion[]> = {
  apt: [{ version: '7.4.0' }, { version: '7.5.0' }, { version: '7.5.1' }],
  ntp: [{ version: '3.7.0' }, { version: '3.8.0' }],
  sudo: [{ version: '5.4.7' }, { version: '5.5.0' }],
  users: [{ version: '6.0.0' }, { version: '6.1.0' }],
  openssh: [{ version: '2.10.3', deps: [['iptables', '>= 7.0']] }, { version: '2.11.0', deps: [['iptables', '>= 7.0']] }],
  iptables: [{ version: '8.0.0' }, { version: '8.1.0' }],
  'chef-client': [{ version: '12.3.4', deps: [['logrotate', '>= 2.2.0']] }, { version: '13.0.0', deps: [['logrotate', '>= 2.2.0']] }],
  logrotate: [{ version: '3.0.0' }, { version: '3.0.1' }],
  nginx: [{ version: '11.5.0' }, { version: '11.6.2' }, { version: '12.0.1' }, { version: '12.1.0' }],
  gateway: [{ version: '3.1.0', deps: [['nginx', '~> 11.5']] }, { version: '3.2.0', deps: [['nginx', '~> 11.6']] }],
  mysql: [{ version: '10.1.0' }, { version: '11.0.0' }],
  collectd: [{ version: '2.2.4' }, { version: '2.3.0' }],
  haproxy: [{ version: '12.2.1' }, { version: '12.3.0' }],
  redisio: [{ version: '6.4.1', deps: [['selinux', '>= 6.0']] }, { version: '6.5.0', deps: [['selinux', '>= 6.0']] }],
  selinux: [{ version: '6.1.12' }, { version: '6.2.0' }],
  jenkins: [{ version: '9.5.0', deps: [['java', '~> 11.0']] }, { version: '9.5.5', deps: [['java', '~> 11.0']] }],
  java: [{ version: '11.0.0' }, { version: '11.1.0' }],
  firewall: [{ version: '6.2.0' }, { version: '6.3.1' }],
  logstash: [{ version: '1.4.0' }, { version: '1.5.0' }],
  base: [
    { version: '2.1.0', deps: [['apt', '~> 7.4'], ['ntp', '>= 3.7'], ['sudo', '>= 5.4'], ['users', '>= 6.0'], ['openssh', '~> 2.10']] },
    { version: '2.2.0', deps: [['apt', '~> 7.5'], ['ntp', '>= 3.7'], ['sudo', '>= 5.4'], ['users', '>= 6.0'], ['openssh', '~> 2.10']] },
  ],
  webapp: [
    { version: '1.4.0', deps: [['nginx', '~> 11.5']] },
    { version: '1.5.0', deps: [['nginx', '>= 11.5']] },
    { version: '1.5.2', deps: [['nginx', '>= 11.5']] },
  ],
  monitoring: [{ version: '0.9.0', deps: [['collectd', '>= 2.2']] }, { version: '1.0.0', deps: [['collectd', '>= 2.2']] }],
};

/** Deterministic 40-hex identifiers, like chef-cli's cookbook content identifiers. */
export function demoIdentifier(name: string, version: string, salt = ''): string {
  return createHash('sha1').update(`${name}@${version}${salt}`).digest('hex');
}

/** Console extension: resource names a cookbook version defines (resource-map takeover warnings). */
const PROVIDES: Record<string, string[]> = { 'webapp@1.5.2': ['webapp_site', 'sysctl'], 'gateway@3.2.0': ['gateway_upstream'] };

function cookbookEntry(name: string, version: string, salt = '') {
  const identifier = demoIdentifier(name, version, salt);
  const provides = PROVIDES[`${name}@${version}`];
  const internal = ['base', 'webapp', 'monitoring', 'gateway'].includes(name);
  return {
    version,
    identifier,
    dotted_decimal_identifier: identifier
      .slice(0, 42)
      .match(/.{1,14}/g)!
      .map((h) => String(parseInt(h, 16) % 1e15))
      .join('.'),
    ...(internal
      ? {
          source: `cookbooks/${name}`,
          cache_key: null,
          scm_info: { scm: 'git', remote: `git@git.example.com:chef/${name}.git`, revision: identifier, working_tree_clean: true, published: true, synchronized_remote_branches: ['origin/main'] },
          source_options: { path: `cookbooks/${name}` },
        }
      : {
          cache_key: `${name}-${version}-supermarket.chef.io`,
          origin: `https://supermarket.chef.io:443/api/v1/cookbooks/${name}/versions/${version}/download`,
          source_options: { artifactserver: `https://supermarket.chef.io:443/api/v1/cookbooks/${name}/versions/${version}/download`, version },
        }),
    ...(provides ? { provides } : {}),
  };
}

export interface DemoPolicySpec {
  name: string;
  team: (typeof DEMO_TEAMS)[number]['name'];
  runList: string[];
  /** Each revision: cookbook versions (index into the catalog) and attributes. */
  revisions: { cookbooks: Record<string, string>; default: Record<string, unknown>; override?: Record<string, unknown>; salt?: Record<string, string> }[];
  /** Which revision (index) each stage runs; missing stage: the policy is not there. */
  stages: Partial<Record<(typeof DEMO_STAGES)[number]['name'], number>>;
  nodes: { platform: string; platform_family: string; platform_version: string };
}

const BASE_COOKBOOKS = { apt: '7.4.0', ntp: '3.7.0', sudo: '5.4.7', users: '6.0.0', openssh: '2.10.3', iptables: '8.0.0', 'chef-client': '12.3.4', logrotate: '3.0.0', base: '2.1.0' };
const BASE_COOKBOOKS_2 = { ...BASE_COOKBOOKS, apt: '7.5.0', base: '2.2.0', ntp: '3.8.0' };
const BASE_COOKBOOKS_3 = { ...BASE_COOKBOOKS_2, apt: '7.5.1', 'chef-client': '13.0.0', logrotate: '3.0.1' };
const BASE_RUN = ['recipe[base::default]', 'recipe[apt::default]', 'recipe[ntp::default]', 'recipe[sudo::default]', 'recipe[users::sysadmins]', 'recipe[openssh::default]', 'recipe[chef-client::default]'];
const baseAttrs = (ntp: string[], sshPort = 22) => ({
  ntp: { servers: ntp },
  authorization: { sudo: { groups: ['sysadmin'], passwordless: true } },
  openssh: { server: { port: sshPort, permit_root_login: 'no', password_authentication: 'no' } },
  chef_client: { interval: 1800, splay: 300 },
});
const ubuntu = { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04' };
const rhel = { platform: 'redhat', platform_family: 'rhel', platform_version: '9.3' };

export const DEMO_POLICIES: DemoPolicySpec[] = [
  {
    name: 'base',
    team: 'core',
    runList: BASE_RUN,
    revisions: [
      { cookbooks: BASE_COOKBOOKS, default: baseAttrs(['0.pool.ntp.org', '1.pool.ntp.org']) },
      { cookbooks: BASE_COOKBOOKS_2, default: baseAttrs(['ntp1.example.com', 'ntp2.example.com']) },
      { cookbooks: BASE_COOKBOOKS_3, default: baseAttrs(['ntp1.example.com', 'ntp2.example.com']) },
    ],
    stages: { dev: 2, qa: 2, staging: 1, production: 1 },
    nodes: ubuntu,
  },
  {
    name: 'webapp',
    team: 'web',
    runList: [...BASE_RUN, 'recipe[nginx::default]', 'recipe[webapp::default]', 'recipe[webapp::deploy]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, nginx: '11.5.0', webapp: '1.4.0' }, default: { ...baseAttrs(['ntp1.example.com']), nginx: { worker_processes: 4, client_max_body_size: '10m' }, webapp: { release: '2026.10.2', workers: 8 } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, nginx: '12.0.1', webapp: '1.5.0' }, default: { ...baseAttrs(['ntp1.example.com']), nginx: { worker_processes: 'auto', client_max_body_size: '25m' }, webapp: { release: '2026.11.1', workers: 12 } } },
      {
        cookbooks: { ...BASE_COOKBOOKS_2, nginx: '12.1.0', webapp: '1.5.2' },
        default: { ...baseAttrs(['ntp1.example.com']), nginx: { worker_processes: 'auto', client_max_body_size: '25m', http2: true }, webapp: { release: '2026.11.3', workers: 12 } },
        override: { webapp: { feature_flags: { new_checkout: true } } },
      },
    ],
    stages: { dev: 2, qa: 2, staging: 1, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'api-gateway',
    team: 'web',
    runList: [...BASE_RUN, 'recipe[nginx::default]', 'recipe[gateway::default]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, nginx: '11.5.0', gateway: '3.1.0' }, default: { gateway: { upstreams: ['api-1', 'api-2'], rate_limit: 500 } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, nginx: '11.6.2', gateway: '3.2.0' }, default: { gateway: { upstreams: ['api-1', 'api-2', 'api-3'], rate_limit: 800 } } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'mysql-primary',
    team: 'dba',
    runList: [...BASE_RUN, 'recipe[mysql::server]', 'recipe[mysql::backup]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, mysql: '10.1.0' }, default: { mysql: { version: '8.0', server: { max_connections: 500, innodb_buffer_pool_size: '12G' }, backup: { schedule: '0 2 * * *' } } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, mysql: '11.0.0' }, default: { mysql: { version: '8.4', server: { max_connections: 800, innodb_buffer_pool_size: '16G' }, backup: { schedule: '0 2 * * *' } } } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 0 },
    nodes: rhel,
  },
  {
    name: 'mysql-replica',
    team: 'dba',
    runList: [...BASE_RUN, 'recipe[mysql::server]', 'recipe[mysql::replica]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, mysql: '10.1.0' }, default: { mysql: { version: '8.0', replica: { source_host: 'db-primary.internal', read_only: true } } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, mysql: '11.0.0' }, default: { mysql: { version: '8.4', replica: { source_host: 'db-primary.internal', read_only: true } } } },
    ],
    stages: { dev: 1, qa: 1, staging: 0, production: 0 },
    nodes: rhel,
  },
  {
    name: 'monitoring',
    team: 'monitoring',
    runList: ['recipe[collectd::default]', 'recipe[monitoring::default]'],
    revisions: [
      { cookbooks: { collectd: '2.2.4', monitoring: '0.9.0' }, default: { collectd: { interval: 20, graphite_host: 'graphite.internal' }, ntp: { servers: ['0.pool.ntp.org'] } } },
      // The newer revision stops setting ntp servers, which the core team owns (the compose demo's conflict and its fix).
      { cookbooks: { collectd: '2.3.0', monitoring: '1.0.0' }, default: { collectd: { interval: 10, graphite_host: 'graphite.internal' } } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'collectd-agent',
    team: 'monitoring',
    runList: [...BASE_RUN, 'recipe[collectd::default]', 'recipe[collectd::plugins]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, collectd: '2.2.4' }, default: { collectd: { interval: 20, plugins: ['cpu', 'memory', 'disk'] } } },
      { cookbooks: { ...BASE_COOKBOOKS, collectd: '2.3.0' }, default: { collectd: { interval: 10, plugins: ['cpu', 'memory', 'disk', 'network'] } } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 1 },
    nodes: ubuntu,
  },
  {
    name: 'haproxy-lb',
    team: 'web',
    runList: [...BASE_RUN, 'recipe[haproxy::default]', 'recipe[firewall::default]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, haproxy: '12.2.1', firewall: '6.2.0' }, default: { haproxy: { maxconn: 20000, backends: ['web-1', 'web-2', 'web-3'] } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, haproxy: '12.3.0', firewall: '6.3.1' }, default: { haproxy: { maxconn: 40000, backends: ['web-1', 'web-2', 'web-3', 'web-4'] } } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'redis-cache',
    team: 'dba',
    runList: [...BASE_RUN, 'recipe[redisio::default]', 'recipe[redisio::enable]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, redisio: '6.4.1', selinux: '6.1.12' }, default: { redisio: { version: '7.2', servers: [{ port: 6379, maxmemory: '4gb' }] } } },
      { cookbooks: { ...BASE_COOKBOOKS, redisio: '6.4.1', selinux: '6.1.12' }, default: { redisio: { version: '7.2', servers: [{ port: 6379, maxmemory: '4gb' }] } }, salt: { redisio: 'hotfix-1' } },
    ],
    stages: { dev: 1, qa: 1, staging: 1, production: 0 },
    nodes: rhel,
  },
  {
    name: 'jenkins-ci',
    team: 'core',
    runList: [...BASE_RUN, 'recipe[java::default]', 'recipe[jenkins::master]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, java: '11.0.0', jenkins: '9.5.0' }, default: { java: { jdk_version: '17' }, jenkins: { master: { port: 8080 } } } },
      { cookbooks: { ...BASE_COOKBOOKS, java: '11.1.0', jenkins: '9.5.5' }, default: { java: { jdk_version: '21' }, jenkins: { master: { port: 8080 } } } },
    ],
    stages: { dev: 1, qa: 0, staging: 0, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'bastion',
    team: 'core',
    runList: [...BASE_RUN, 'recipe[firewall::default]'],
    revisions: [{ cookbooks: { ...BASE_COOKBOOKS, firewall: '6.2.0' }, default: { ...baseAttrs(['ntp1.example.com'], 2222), firewall: { allow: ['22/tcp', '2222/tcp'] } } }],
    stages: { dev: 0, qa: 0, staging: 0, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'logstash-shipper',
    team: 'monitoring',
    runList: [...BASE_RUN, 'recipe[logstash::agent]'],
    revisions: [
      { cookbooks: { ...BASE_COOKBOOKS, logstash: '1.4.0' }, default: { logstash: { outputs: ['logs.internal:5044'] } } },
      { cookbooks: { ...BASE_COOKBOOKS_2, logstash: '1.5.0' }, default: { logstash: { outputs: ['logs.internal:5044'], pipeline_workers: 4 } } },
    ],
    stages: { dev: 1, qa: 1, staging: 0, production: 0 },
    nodes: ubuntu,
  },
  {
    name: 'ntp-server',
    team: 'core',
    runList: ['recipe[base::default]', 'recipe[ntp::server]'],
    revisions: [{ cookbooks: { apt: '7.4.0', ntp: '3.7.0', sudo: '5.4.7', users: '6.0.0', openssh: '2.10.3', iptables: '8.0.0', base: '2.1.0' }, default: { ntp: { servers: ['time.cloudflare.com', 'time.google.com'], peers: ['ntp1.example.com', 'ntp2.example.com'] } } }],
    stages: { dev: 0, qa: 0, staging: 0, production: 0 },
    nodes: ubuntu,
  },
];

/** Builds one revision's lock document (text and parsed) for a demo policy. */
export function buildDemoLock(spec: DemoPolicySpec, index: number): { text: string; lock: PolicyLock } {
  const rev = spec.revisions[index];
  const names = Object.keys(rev.cookbooks).sort();
  const cookbook_locks = Object.fromEntries(names.map((n) => [n, cookbookEntry(n, rev.cookbooks[n], rev.salt?.[n] ?? '')]));
  const dependencies: Record<string, [string, string][]> = {};
  for (const n of names) {
    const v = rev.cookbooks[n];
    dependencies[`${n} (${v})`] = (CATALOG[n]?.find((c) => c.version === v)?.deps ?? []).filter(([d]) => d in rev.cookbooks);
  }
  const lock: PolicyLock = {
    revision_id: '',
    name: spec.name,
    run_list: spec.runList,
    included_policy_locks: [],
    cookbook_locks,
    default_attributes: rev.default,
    override_attributes: rev.override ?? {},
    solution_dependencies: { Policyfile: names.map((n) => [n, '>= 0.0.0'] as [string, string]), dependencies },
  };
  lock.revision_id = computeRevisionId(lock);
  return { text: JSON.stringify(lock, null, 2) + '\n', lock };
}

const mergedTechniques = ['A', 'B', 'C'].map((name) => ({ name, version: '1.0', multiInstance: true, generationMode: 'merged' }));
const letters = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'].map((n) => ({ id: n.toLowerCase(), name: n, technique: n[0], priority: 5, values: { value: [n] } }));

/** Rudder's documentation examples, as the real code computes them. */
export const DEMO_SCENARIOS = [
  {
    name: "Rudder doc example 1 (typo fixed)",
    note: 'R1 = [A1, B1, C2], R2 = [A2, B2, C1]. The documentation prints C2 twice (a typo: R2 holds C1). Order: A1, A2, B1, B2, C2, C1.',
    input: { techniques: mergedTechniques, directives: letters, rules: [
      { id: 'r1', name: 'R1', directiveIds: ['a1', 'b1', 'c2'] },
      { id: 'r2', name: 'R2', directiveIds: ['a2', 'b2', 'c1'] },
    ] },
    selectedRules: ['r1', 'r2'],
  },
  {
    name: 'Rudder doc example 2',
    note: "All priorities equal; R0 = [C1], R1 = [A1, B2], R2 = [A2, B1, C2]. The documentation's last line says B's values are [B1, B2]; the code (and its own bullet above) gives [B2, B1], because values follow (priority, rule name, directive name) and B2 sits in R1.",
    input: { techniques: mergedTechniques, directives: letters, rules: [
      { id: 'r0', name: 'R0', directiveIds: ['c1'] },
      { id: 'r1', name: 'R1', directiveIds: ['a1', 'b2'] },
      { id: 'r2', name: 'R2', directiveIds: ['a2', 'b1', 'c2'] },
    ] },
    selectedRules: ['r0', 'r1', 'r2'],
  },
];
