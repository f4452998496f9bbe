// The status texts a registry answers register, unregister and heartbeat with (spec: Registry
// endpoints, Registry entry lifecycle). Clients compare against these.
export const REGISTRY_STATUS = {
  registered: 'agent registered successfully',
  unregistered: 'agent unregistered successfully',
  heartbeat: 'agent heartbeat recorded',
  notFound: 'agent not found',
} as const;
