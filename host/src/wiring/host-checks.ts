import type { Clock, HostIdentity, Result } from '@tether/shared-protocol';
import { ok, systemClock } from '@tether/shared-protocol';
import { homedir, hostname } from 'node:os';
import type { DataPaths } from '../config/data-dir.js';
import { dataPaths, prepareDataDir } from '../config/data-dir.js';
import { loadOrCreateIdentity } from '../config/host-identity.js';
import type { McpConfig } from '../mcp/mcp-config.js';
import { loadMcpConfig } from '../mcp/mcp-config.js';
import type { ModelConfig } from '../models/model-config.js';
import { loadModelConfig } from '../models/model-config.js';
import type { ModelSpec } from '../models/model-spec.js';
import { defaultModelSpec, formatModelSpec, parseModelSpec } from '../models/model-spec.js';
import type { PriceBook } from '../models/prices.js';
import { loadPriceBook } from '../models/price-config.js';
import { createProvider } from '../models/registry.js';
import { relayTickets, relayUrls } from '../relay/host-relay.js';
import type { RelayTickets } from '../relay/relay-tickets.js';
import type { AgentsConfig } from '../sessions/acp/agent-config.js';
import { agentsConfigPath, loadAgents } from '../sessions/acp/agent-config.js';
import { ownPrivates } from '../sessions/host-context.js';
import type { HostOptions } from './host-options.js';

/** What a host is built from once everything that can be wrong with its options has been checked. */
export interface HostChecks {
  readonly clock: Clock;
  readonly name: string;
  readonly startedAt: number;
  readonly paths: DataPaths;
  readonly roots: string[];
  readonly privates: string[];
  readonly identity: HostIdentity;
  readonly defaultModel: string;
  readonly defaultSpec: ModelSpec;
  readonly mcpConfig: McpConfig;
  readonly modelConfig: ModelConfig;
  readonly prices: PriceBook;
  readonly agents: AgentsConfig;
  /** With `--relay`: its URLs and the tickets a paired phone is given for them. */
  readonly tickets: { urls: string[]; tickets: RelayTickets } | undefined;
}

/**
 * Checks what a host needs before any part is built: the data dir, the identity, the default model
 * and its provider, the config files and the relay URLs. Opens nothing that needs closing.
 */
export function checkHost(options: HostOptions): Result<HostChecks> {
  const clock = options.clock ?? systemClock;
  const name = hostname();
  const startedAt = clock.now();
  const paths = dataPaths(options.dataDir);
  const dir = prepareDataDir(paths.dir);
  if (!dir.ok) return dir;
  const roots = options.remote?.roots ?? options.roots ?? [homedir()];
  const privates = ownPrivates(options, roots);
  if (!privates.ok) return privates;
  const loaded = loadOrCreateIdentity(paths.identity);
  if (!loaded.ok) return loaded;
  const identity = loaded.value.identity;

  const defaultModel = options.model ?? formatModelSpec(defaultModelSpec(options.env));
  const defaultSpec = parseModelSpec(defaultModel);
  if (!defaultSpec.ok) return defaultSpec;
  const provider = createProvider(defaultSpec.value, options.env);
  if (!provider.ok) return provider;

  const mcpConfig = loadMcpConfig(options.mcpConfig ?? paths.mcpConfig, {
    required: options.mcpConfig !== undefined,
  });
  if (!mcpConfig.ok) return mcpConfig;
  const modelConfig = loadModelConfig(paths.models);
  if (!modelConfig.ok) return modelConfig;
  const prices = loadPriceBook(paths.prices);
  if (!prices.ok) return prices;
  const agents = loadAgents(options.agentsConfig ?? agentsConfigPath(paths.dir), {
    required: options.agentsConfig !== undefined,
  });
  if (!agents.ok) return agents;
  let tickets: HostChecks['tickets'];
  if (options.relay) {
    const urls = relayUrls(options.relay.urls);
    if (!urls.ok) return urls;
    tickets = { urls: urls.value, tickets: relayTickets(urls.value, identity, clock) };
  }
  return ok({
    clock,
    name,
    startedAt,
    paths,
    roots,
    privates: privates.value,
    identity,
    defaultModel,
    defaultSpec: defaultSpec.value,
    mcpConfig: mcpConfig.value,
    modelConfig: modelConfig.value,
    prices: prices.value,
    agents: agents.value,
    tickets,
  });
}
