// parley's public API: what users call (servers, clients, authenticators, model providers,
// stores, metrics), the errors they catch, and the wire types. Generated pieces (types,
// validators, operation tables, typed clients, handler interfaces) are also importable on their
// own: parley-agents/types, parley-agents/validators, ... The pipeline's plumbing (endpoint tables, span
// starts, stream items) is in parley-agents/internal (src/internal.ts), which may change in any release.

export { AgentServer, type AgentServerOptions, type StatePolicy } from './agent/agent-server.js';
export { advertisedSchemes, type AdvertisedScheme } from './agent/agent-card.js';
export {
  needsInput,
  type AgentEvent,
  type AgentHandler,
  type ArtifactInput,
  type HandlerOutput,
  type MessageInput,
  type RunModelOptions,
  type TaskContext,
  type TaskOutcome,
  type ToolOutput,
} from './agent/handler.js';
export type { SessionValues } from './agent/sessions.js';
export { TaskCanceledError } from './agent/task-engine.js';
export { AgentClient, TaskFailedError, type AgentClientOptions } from './client/agent-client.js';
export type { AgentRegistrationOptions } from './agent/agent-registration.js';
export {
  RegistryClient,
  type DiscoverFilters,
  type RegistryCallStatus,
  type RegistryClientOptions,
} from './client/registry-client.js';
export { RegistryServer, type RegistryServerOptions } from './registry/registry-server.js';
export { PrometheusMetrics, type MetricsOptions, type MetricsSource } from './observability/prometheus-metrics.js';
export type { LogDestination, LogLevel, LogOptions, Logger, LoggerOption } from './observability/logger.js';
export { observabilityHooks } from './observability/hooks.js';
export type { TransportHooks } from './transport/hooks.js';
export type { IndexKeys, MaybePromise, RegistryStore } from './registry/registry-store.js';
export { MemoryRegistryStore } from './stores/memory/memory-registry-store.js';
export { SqliteRegistryStore, type SqliteRegistryStoreOptions } from './stores/sqlite/sqlite-registry-store.js';
export { RegistryStoreError, type RegistryStoreErrorCode } from './stores/sqlite/sqlite-error.js';
export { RedisRegistryStore } from './stores/redis/redis-registry-store.js';
export type { RedisConnectOptions } from './stores/redis/redis-target.js';
export { RedisStoreError, type RedisStoreErrorCode } from './stores/redis/redis-error.js';
export { StoreUnavailableError } from './core/store-unavailable-error.js';
export type { IdempotencyBounds, IdempotencyRunner, IdempotencyStore } from './transport/idempotency-store.js';
export type { Authenticator } from './auth/authenticator.js';
export { ApiKeyAuthenticator, type ApiKeyAuthenticatorOptions } from './auth/api-key.js';
export { AuthenticationError, type AuthenticationFailure } from './auth/authentication-error.js';
export { BasicAuthenticator, type BasicAuthenticatorOptions } from './auth/basic.js';
export { JwtAuthenticator, JWT_ALGORITHMS, type JwtAlgorithm, type JwtAuthenticatorOptions } from './auth/jwt.js';
export { OAuthDelegationAuthenticator, type OAuthDelegationAuthenticatorOptions } from './auth/oauth-delegation.js';
export { createSecurityContext, isExpired, NaiveTimestampError, type SecurityContextInit } from './auth/security-context.js';
export { extractCredentials } from './auth/credentials.js';
export type { BearerToken, ClientAuth } from './auth/client-auth.js';
export type { Pem, TlsMaterial, TransportTlsOptions } from './tls/tls-material.js';
export {
  estimateTokens,
  type ChatTurn,
  type CompletionOptions,
  type LanguageModel,
  type ModelEvent,
  type ModelRequest,
  type ModelToolCall,
  type TokenCounter,
  type ToolDefinition,
} from './llm/language-model.js';
export { ModelError, RunBudgetError, type BudgetLimit, type ModelErrorCode } from './llm/model-error.js';
export {
  DEFAULT_RUN_BUDGET,
  runModelLoop,
  type ModelLoopObserver,
  type ModelLoopOptions,
  type ModelLoopResult,
  type RunBudget,
} from './llm/model-loop.js';
export { tool, type Tool, type ToolRunContext, type ToolSpec } from './llm/tool.js';
export { OpenAIChatModel, type OpenAIChatOptions } from './llm/providers/openai-chat.js';
export { AnthropicMessagesModel, type AnthropicMessagesOptions } from './llm/providers/anthropic-messages.js';
export {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_RETRY,
  DEFAULT_STEP_TIMEOUT_MS,
} from './llm/providers/step-call.js';
export { Transport, type TransportOptions } from './transport/transport.js';
export { TRANSPORT_NAMES } from './transport/factory.js';
export type { MountedAgentTransport, MountOptions } from './transport/http/express-adapter.js';
export { createMountedTransport, createTransport } from './observability/observed-transport.js';
export type { BindingCapabilities, Capabilities, Capability, TransportName } from './transport/capabilities.js';
export {
  DEFAULT_LIMITS,
  DEFAULT_RETRY,
  ResolvedConfig,
  type LimitsOptions,
  type RetryOptions,
  type TlsOptions,
  type GrpcOptions,
  type TransportConfigOptions,
} from './transport/config.js';
export type { OutboundOptions } from './transport/outbound.js';
export {
  type PayloadKind,
  TransportConnectionError,
  TransportError,
  TransportLimitError,
  TransportProtocolError,
  TransportRemoteError,
  TransportTimeoutError,
} from './transport/errors.js';
export { ConfigError, InvalidArgumentError, MissingDependencyError, StateError } from './core/errors.js';
export type { RequestContext, SpanHandle } from './transport/endpoint.js';
export { EndpointError, type ApplicationErrorOptions } from './transport/endpoint-error.js';
export { ERROR_STATUS } from '../generated/errors/error-status.js';
export { TASK_STATES, TERMINAL_STATES, canTransition, isTerminal } from './core/task-state.js';
export type * from '../generated/types/index.js';
