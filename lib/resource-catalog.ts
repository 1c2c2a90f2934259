import type { Registration } from '@/lib/domain/resource-map';

/** Chef core resources with realistic platform filters (after Chef Infra's own `provides` lines). */
export const CORE_CATALOG: Registration[] = [
  { key: 'package', className: 'Chef::Resource::AptPackage', source: 'core', filters: { platform_family: 'debian' } },
  { key: 'package', className: 'Chef::Resource::YumPackage', source: 'core', filters: { platform_family: ['rhel', 'fedora', 'amazon'] } },
  { key: 'package', className: 'Chef::Resource::DnfPackage', source: 'core', filters: { platform_family: ['rhel', 'fedora', 'amazon'], platform_version: '>= 8' } },
  { key: 'package', className: 'Chef::Resource::ZypperPackage', source: 'core', filters: { platform_family: 'suse' } },
  { key: 'package', className: 'Chef::Resource::ChocolateyPackage', source: 'core', filters: { os: 'windows' } },
  { key: 'package', className: 'Chef::Resource::HomebrewPackage', source: 'core', filters: { os: 'darwin' } },
  { key: 'service', className: 'Chef::Resource::Service', source: 'core' },
  { key: 'service', className: 'Chef::Resource::SystemdService', source: 'core', filters: { os: 'linux', block: { label: 'systemd is PID 1', result: true } } },
  { key: 'service', className: 'Chef::Resource::WindowsService', source: 'core', filters: { os: 'windows' } },
  { key: 'service', className: 'Chef::Resource::MacosxService', source: 'core', filters: { os: 'darwin' } },
  { key: 'file', className: 'Chef::Resource::File', source: 'core' },
  { key: 'template', className: 'Chef::Resource::Template', source: 'core' },
  { key: 'directory', className: 'Chef::Resource::Directory', source: 'core' },
  { key: 'execute', className: 'Chef::Resource::Execute', source: 'core' },
  { key: 'cron', className: 'Chef::Resource::Cron', source: 'core', filters: { os: '!windows' } },
  { key: 'mount', className: 'Chef::Resource::Mount', source: 'core', filters: { os: '!windows' } },
  { key: 'mount', className: 'Chef::Resource::WindowsMount', source: 'core', filters: { os: 'windows' } },
  { key: 'user', className: 'Chef::Resource::User::LinuxUser', source: 'core', filters: { os: 'linux' } },
  { key: 'user', className: 'Chef::Resource::User::WindowsUser', source: 'core', filters: { os: 'windows' } },
  { key: 'user', className: 'Chef::Resource::User::MacUser', source: 'core', filters: { os: 'darwin' } },
  { key: 'group', className: 'Chef::Resource::Group', source: 'core' },
  { key: 'group', className: 'Chef::Resource::WindowsGroup', source: 'core', filters: { os: 'windows' } },
  { key: 'timezone', className: 'Chef::Resource::Timezone', source: 'core', allowCookbookOverride: true },
  { key: 'sysctl', className: 'Chef::Resource::Sysctl', source: 'core', allowCookbookOverride: '< 15' },
];

export const NODE_PRESETS = [
  { label: 'Ubuntu 22.04', node: { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04', os: 'linux' } },
  { label: 'RHEL 9.3', node: { platform: 'redhat', platform_family: 'rhel', platform_version: '9.3', os: 'linux' } },
  { label: 'CentOS 7.9', node: { platform: 'centos', platform_family: 'rhel', platform_version: '7.9', os: 'linux' } },
  { label: 'Windows Server 2022', node: { platform: 'windows', platform_family: 'windows', platform_version: '10.0.20348', os: 'windows' } },
  { label: 'macOS 14', node: { platform: 'mac_os_x', platform_family: 'mac_os_x', platform_version: '14.4', os: 'darwin' } },
];
