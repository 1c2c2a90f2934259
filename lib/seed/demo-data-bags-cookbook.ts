/**
 * Issue 24: the names and the demo secret of the demo's data bags, and the
 * recipe of the demo's `monitoring` cookbook that reads them (pure: the demo
 * catalog in demo-data.ts builds its cookbook files from it). The seeding is
 * in demo-data-bags.ts.
 */

/** The demo's encrypted data bag secret. Public on purpose: it protects demo data only. */
export const DEMO_DATA_BAG_SECRET = 'policy-console-demo-secret-0f3c9a7e51d24b68';

export const DEMO_BAGS = { settings: 'demo_settings', secrets: 'demo_secrets', vault: 'demo_vault' } as const;

/**
 * The demo `monitoring` cookbook's recipe and attributes (every version): it
 * reads the three demo bags and writes what it read to
 * `node['monitoring']['conf_dir']/monitoring.json`.
 */
export function demoBagCookbookFiles(name: string, version: string): Record<string, string> {
  if (name !== 'monitoring') return {};
  return {
    'attributes/default.rb': `default['monitoring']['enabled'] = true\ndefault['monitoring']['version'] = '${version}'\ndefault['monitoring']['conf_dir'] = '/etc/monitoring'\n`,
    'recipes/default.rb': [
      `# monitoring ${version}: reads the demo's data bags (plain settings, an encrypted item, a chef-vault item).`,
      `settings = data_bag_item('${DEMO_BAGS.settings}', 'monitoring')`,
      `# Decrypted with the node's encrypted_data_bag_secret (the demo secret, shown on the demo's Data bags page).`,
      `graphite = Chef::EncryptedDataBagItem.load('${DEMO_BAGS.secrets}', 'graphite')`,
      `alerting = chef_vault_item('${DEMO_BAGS.vault}', 'alerting')`,
      '',
      "directory node['monitoring']['conf_dir'] do",
      '  recursive true',
      'end',
      '',
      "file ::File.join(node['monitoring']['conf_dir'], 'monitoring.json') do",
      '  content JSON.pretty_generate(',
      "    'graphite_host' => settings['graphite_host'],",
      "    'graphite_port' => settings['graphite_port'],",
      "    'graphite_api_key' => graphite['api_key'],",
      "    'pagerduty_key' => alerting['pagerduty_key']",
      '  )',
      "  mode '0600'",
      '  sensitive true',
      'end',
      '',
      `log 'monitoring ${version} converged' do`,
      '  level :info',
      'end',
      '',
    ].join('\n'),
  };
}

