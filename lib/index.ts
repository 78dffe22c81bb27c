/**
 * toolsmith: define a tool once, hand it to any model provider, run it safely.
 *
 * @remarks
 * Every public name, listed explicitly. The same names are grouped by area
 * in the subpath entries (`toolsmith/core`, `toolsmith/artifacts`,
 * `toolsmith/tools`, `toolsmith/providers`, `toolsmith/mcp`,
 * `toolsmith/runner`) for narrower imports. Helpers that are not part of the
 * API live in `toolsmith/internal` (no stability promise). The MCP SDK loads
 * only when `createMcpServer` is first called.
 *
 * @packageDocumentation
 */

// --- core: Validation, exceptions, identities and the Tool core ---
export {
  ValidationException,
  asyncValidateOrThrow,
  validateOrThrow,
  validator,
  withoutInputValues,
  type Description,
  type ObjectSchema,
  type Schema,
  type ValidateOptions,
  type ValidationErrorItem,
} from './validation.js'
export {
  BaseException,
  E_ARTIFACT_QUERY_FAILED,
  E_INVALID_INITIAL_REGISTRY_VALUE,
  E_INVALID_INITIAL_TOOL_CALL_VALUE,
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_OPTIONS,
  E_INVALID_POLICY,
  E_INVALID_TOOL_ARGS,
  E_NOT_A_SPOOL_READER,
  E_NOT_A_TOOL,
  E_NOT_CANONICALIZABLE,
  E_OPTIONAL_DEPENDENCY_MISSING,
  E_PROVIDER_SCHEMA_UNSUPPORTED,
  E_TOOL_ABORTED,
  E_TOOL_ALREADY_REGISTERED,
  E_TOOL_BINARY_FILE,
  E_TOOL_COMMAND_FAILED,
  E_TOOL_COMMAND_NOT_FOUND,
  E_TOOL_CONTENT_TOO_LARGE,
  E_TOOL_DENIED,
  E_TOOL_DOWNSTREAM_ERROR,
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_FILE_TOO_LARGE,
  E_TOOL_GIT_REMOTE_DISABLED,
  E_TOOL_GREP_FAILED,
  E_TOOL_IO_ERROR,
  E_TOOL_OUTCOME_UNKNOWN,
  E_JOURNAL_UNAVAILABLE,
  E_JOURNAL_CORRUPT,
  E_TOOL_NETWORK_DISABLED,
  E_TOOL_NOT_A_FILE,
  E_TOOL_NOT_REGISTERED,
  E_TOOL_PATCH_FAILED,
  E_TOOL_PATCH_TOO_LARGE,
  E_TOOL_PATH_ESCAPE,
  E_TOOL_PATH_INVALID,
  E_TOOL_SANDBOX_UNAVAILABLE,
  E_TOOL_PATH_PROTECTED,
  E_TOOL_LIMIT_EXCEEDED,
  E_TOOL_NOT_A_DIRECTORY,
  E_TOOL_TIMEOUT,
  E_TURN_ABORTED,
  createException,
  describeCause,
  errorSummary,
  toolFailureParts,
  toolFailureText,
  type ToolFailureParts,
  type ExceptionClass,
  type ExceptionOptions,
} from './exceptions.js'
export {
  TOOL_PATH_ESCAPE,
  TOOL_PATH_INVALID,
  TOOL_FILE_NOT_FOUND,
  TOOL_FILE_TOO_LARGE,
  TOOL_NOT_A_FILE,
  TOOL_BINARY_FILE,
  TOOL_CONTENT_TOO_LARGE,
  TOOL_PATCH_TOO_LARGE,
  TOOL_PATCH_FAILED,
  TOOL_GREP_FAILED,
  TOOL_COMMAND_FAILED,
  TOOL_COMMAND_NOT_FOUND,
  TOOL_TIMEOUT,
  TOOL_ABORTED,
  TOOL_NETWORK_DISABLED,
  TOOL_GIT_REMOTE_DISABLED,
  TOOL_DENIED,
  TOOL_SANDBOX_UNAVAILABLE,
  TOOL_PATH_PROTECTED,
  TOOL_LIMIT_EXCEEDED,
  TOOL_NOT_A_DIRECTORY,
  TOOL_IO_ERROR,
  TOOL_OUTCOME_UNKNOWN,
} from './exception_aliases.js'
export {
  canonicalStringify,
} from './utils/canonical_json.js'
export {
  sha256Hex,
} from './utils/hash.js'
export {
  SPOOLED_ARTIFACT_BRAND,
  isSpooledArtifact,
  type ArtifactClass,
  type SpooledArtifactLike,
} from './contracts/artifact.js'
export {
  Registry,
} from './core/registry.js'
export {
  createDispatchContext,
  type DispatchContext,
  type DispatchContextOptions,
  type DispatchEvents,
  type DispatchListener,
  type GatedToolCall,
  type GateVerdict,
  type NetworkRequestEvent,
  type ObservableDispatchContext,
  type PermissionDecisionEvent,
  type PermissionRuleRef,
  type ProtectedPathCreatedEvent,
  type ToolCallGate,
  type ToolExecutionEndEvent,
  type ToolExecutionStartEvent,
} from './core/dispatch_context.js'
export { CallRun, type CallRunOptions, type RunIdentity } from './core/pipeline/call_run.js'
export type { CallHooks, PipelineCallEnd, PipelineCallStart, SettledOutput } from './core/pipeline/call_hooks.js'
export type { SpoolRestorer } from './journal/claims.js'
export {
  createCallContext,
  type CallContextOptions,
  type ProviderCallContext,
} from './core/call_context.js'
export {
  type ArgumentRoles,
} from './core/argument_roles.js'
export {
  type TelemetryOptions,
} from './telemetry/spans.js'
export {
  callIdOf,
  idempotencyKeyOf,
  strictCallIdOf,
} from './core/call_identity.js'
export {
  INVALID_ARGS_NOT_RECORDED,
  REDACTION_FAILED,
  Tool,
  type ArtifactConstructorResolver,
  type CollisionPolicy,
  type InvalidCall,
  type PreparedCall,
  type PreparedExecutor,
  type RawTool,
  type ToolCallInfo,
  type ToolDescription,
  type ToolExecutor,
  type ToolHandler,
  type ReconcileAnswer,
  type ReconcileApplied,
  type ReconcileNotApplied,
  type ReconcileInfo,
  type ToolReconciler,
  type ToolResult,
  type ValidCall,
} from './core/tool.js'
export {
  defineTool,
  getDefinedToolMetadata,
  type DefineToolOptions,
  type DefinedToolMetadata,
} from './core/define_tool.js'
export {
  ToolRegistry,
  type MergeOptions,
} from './core/tool_registry.js'
export {
  toolList,
  type ToolCollection,
} from './core/tool_collection.js'
export {
  ToolCall,
  type RawToolCall,
  type ToolCallJSON,
} from './core/tool_call.js'
export {
  PathGlob,
} from './permissions/glob.js'
export {
  CommandPrefix,
  commandSubject,
  type CommandSubject,
} from './permissions/command_match.js'
export {
  permissionPolicySchema,
  type CommandMatch,
  type CompiledAnyMatch,
  type CompiledCommandMatch,
  type CompiledMatch,
  type CompiledPathMatch,
  type CompiledPolicy,
  type CompiledPredicateMatch,
  type CompiledRule,
  type PathMatch,
  type PermissionCallInfo,
  type PermissionDecision,
  type PermissionMatch,
  type PermissionRule,
  type PredicateMatch,
  type RawPermissionPolicy,
} from './permissions/rules.js'
export {
  PermissionPolicy,
  type PathResolver,
  type PolicyCall,
  type PolicyVerdict,
  type ResolvedSubjectPath,
} from './permissions/policy.js'
export {
  Permissions,
  type ApprovalAnswer,
  type ApprovalRequest,
  type ApprovalResponse,
  type Approver,
  type PermissionsOptions,
} from './permissions/permissions.js'
export {
  loadPermissionPolicy,
  parsePermissionPolicy,
} from './permissions/load_policy.js'

// --- artifacts: Spooled results and the artifact_* tools ---
export {
  MemorySpoolReader,
  isSpoolReader,
  type SpoolLine,
  type SpoolLinesOptions,
  type SpoolReader,
  type LineIndex,
} from './artifacts/spool_reader.js'
export {
  FileSpoolReader,
  FileSpoolStore,
  InMemorySpoolStore,
  type ByteStore,
  type FileSpoolStoreOptions,
  type SpoolInput,
  type SpoolStore,
} from './artifacts/stores.js'
export {
  ArtifactTool,
  DEFAULT_ARTIFACT_OUTPUT_LIMITS,
  type ArtifactEntry,
  type ArtifactOutputLimits,
  type ArtifactToolMethod,
  type RawArtifactTool,
} from './artifacts/artifact_tool.js'
export {
  SpooledArtifact,
  type ForgeToolsInput,
  type FromResultOptions,
  type GrepMatch,
  type GrepOptions,
  type SpooledArtifactConstructor,
  type TurnToolCalls,
} from './artifacts/spooled_artifact.js'
export {
  SpooledJsonArtifact,
  type JsonArrayShape,
  type JsonFormat,
  type JsonObjectShape,
  type JsonPathSegment,
  type JsonScalarShape,
  type JsonShape,
  type SpooledJsonArtifactOptions,
} from './artifacts/spooled_json_artifact.js'
export {
  SpooledMarkdownArtifact,
  type MarkdownHeading,
  type MarkdownSection,
} from './artifacts/spooled_markdown_artifact.js'

// --- tools: The sandbox and the five built-in tools ---
export {
  DEFAULT_LIMITS,
  DEFAULT_READ_ONLY_PATHS,
  DEFAULT_UNREADABLE_PATHS,
  MAX_OUTPUT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  SYSTEM_READABLE_PATHS,
  Sandbox,
  type LimitEnforcement,
  type LimitMechanism,
  type LimitName,
  type NetworkAllowlistOptions,
  type SandboxEnforcement,
  type SandboxEngineName,
  type SandboxIsolation,
  type SandboxIsolationOptions,
  type SandboxLimits,
  type SandboxLimitsEnforcement,
  type SandboxLimitsOptions,
  type SandboxOptions,
} from './sandbox/sandbox.js'
export type { SyscallFilterStatus } from './sandbox/sandbox.js'
export {
  GIT_REMOTE_SUBCOMMANDS,
  NETWORK_EXECUTABLES,
  assertOfflineCommand,
} from './sandbox/network.js'
export {
  BashTool,
  EditTool,
  GrepTool,
  ReadTool,
  WriteTool,
  bash,
  createTools,
  edit,
  grep,
  read,
  tools,
  write,
  type BashArgs,
  type BuiltinTools,
  type EditArgs,
  type GrepArgs,
  type ReadArgs,
  type RedactedEditArgs,
  type RedactedWriteArgs,
  type WriteArgs,
} from './tools/index.js'

// --- providers: Provider definitions and the AI SDK adapter ---
export {
  isToolDescription,
  toToolDescription,
  toolInputSchema,
  type ToolLike,
  type ToolLikeCollection,
} from './providers/tool_like.js'
export {
  TOOL_NAME_RULES,
  ToolNameMap,
  type ToolNameMapJSON,
  type ToolNameRule,
  type ToolNameRules,
  type ToolRename,
} from './providers/tool_name_map.js'
export {
  type ProviderToolSet,
} from './providers/provider_tool_set.js'
export {
  JSON_SCHEMA_DIALECT,
  toJsonSchema,
  type JsonSchema,
  type JsonSchemaNode,
  type ToJsonSchemaOptions,
} from './providers/json_schema.js'
export {
  OPENAI_STRICT_LIMITS,
  toOpenAIStrictSchema,
  type OpenAIStrictSchemaOptions,
} from './providers/openai_strict.js'
export {
  PROPERTY_KEY_RULES,
  PropertyKeyMap,
  PropertyKeyMaps,
  type PropertyKeyRename,
  type PropertyKeyRules,
} from './providers/property_key_map.js'
export {
  flattenRootAlternatives,
  toToolInputSchema,
  type FlattenContext,
} from './providers/tool_input_schema.js'
export {
  dropOptionalNulls,
} from './providers/optional_nulls.js'
export {
  toOpenAIResponsesTool,
  toOpenAIResponsesTools,
  toOpenAITool,
  toOpenAITools,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolOptions,
} from './providers/openai.js'
export {
  toAnthropicTool,
  toAnthropicTools,
  type AnthropicInputSchema,
  type AnthropicTool,
  type AnthropicToolOptions,
} from './providers/anthropic.js'
export {
  toGeminiFunctionDeclaration,
  toGeminiFunctionDeclarations,
  toGeminiSchema,
  GeminiType,
  type GeminiFunctionDeclaration,
  type GeminiSchema,
  type GeminiToolOptions,
} from './providers/gemini.js'
export {
  toMcpTool,
  toMcpTools,
  type McpInputSchema,
  type McpToolAnnotations,
  type McpToolDefinition,
  type McpToolOptions,
} from './providers/mcp.js'
export {
  DEFAULT_TOOL_RESULT_MAX_BYTES,
  toolResultToText,
  type ToolResultTextOptions,
} from './providers/tool_result_text.js'
export {
  toAiSdkTools,
  type AiSdkInputSchema,
  type AiSdkTool,
  type AiSdkToolCallOptions,
  type AiSdkToolsOptions,
  type StandardFailure,
  type StandardIssue,
  type StandardSuccess,
  type StandardValidationResult,
} from './providers/ai_sdk.js'

// --- mcp: The MCP server (loads the MCP SDK on first use) ---
export {
  createMcpServer,
  type McpServerOptions,
} from './providers/mcp_server.js'
export {
  McpStdioServerTransport,
  type McpStdioServerTransportOptions,
} from './providers/mcp_stdio_transport.js'
export { MAX_IDEMPOTENCY_KEY_CHARS, MCP_IDEMPOTENCY_KEY_META } from './providers/idempotency_key.js'

// --- runner: TurnRunner, the journals and the model adapters ---
export {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  TOOL_CALL_ROW_FIELDS,
  type JournalOptions,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallJournal,
  type ToolCallPermission,
  type ToolCallRow,
  type ToolCallScope,
  type ToolCallStatus,
  type TruncatedOutput,
} from './journal/contract.js'
export { errorToJson, outputToJson } from './journal/output.js'
export {
  isClaimingJournal,
  type ClaimRequest,
  type ClaimResult,
  type ClaimState,
  type ClaimedRow,
  type ClaimingJournal,
  type ToolCallClaim,
  type TurnCheckpoint,
} from './journal/claiming.js'
export { JsonlJournal, type JsonlJournalOptions } from './journal/jsonl_journal.js'
export { ARGS_NOT_KEPT, type CheckpointKeyInput } from './runner/checkpoint_codec.js'
export { SqliteJournal } from './journal/sqlite_journal.js'
export {
  PostgresJournal,
  postgresJournalMigration,
  type PgPoolClient,
  type PgPoolLike,
  type PgQueryConfig,
  type PgQueryResult,
  type PostgresJournalOptions,
} from './journal/postgres_journal.js'
export {
  copyMessages,
  type Message,
  type MessageRole,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  type ProviderMetadata,
  type ToolDefinition,
  type TurnModel,
} from './runner/messages.js'
export {
  type ModelEndEvent,
  type ModelStartEvent,
  type NetworkRequestTurnEvent,
  type ProtectedPathCreatedTurnEvent,
  type RetryWarningEvent,
  type ToolEndEvent,
  type PermissionDecisionTurnEvent,
  type ToolStartEvent,
  type TurnEndEvent,
  type TurnEvent,
  type TurnEventListener,
  type TurnStartEvent,
} from './runner/events.js'
export {
  toolDefinition,
} from './runner/tool_definition.js'
export {
  scriptedModel,
  type ScriptedStep,
} from './runner/scripted_model.js'
export {
  TurnRunner,
  type TurnIdentity,
  type TurnResult,
  type TurnResumeOptions,
  type TurnRunOptions,
  type TurnRunnerOptions,
} from './runner/turn_runner.js'
export { DEFAULT_CLAIM_LEASE_MS } from './journal/claims.js'
export { type TurnTelemetryOptions } from './telemetry/spans.js'
export {
  fromOpenAIChatResponse,
  openAIChatModel,
  toOpenAIChatMessages,
  type OpenAIChatChoiceLike,
  type OpenAIChatFunctionCall,
  type OpenAIChatAssistantMessage,
  type OpenAIChatCustomCall,
  type OpenAIChatCustomToolCallLike,
  type OpenAIChatFunctionToolCallLike,
  type OpenAIChatMessage,
  type OpenAIChatModelOptions,
  type OpenAIChatRequestBody,
  type OpenAIChatResponseLike,
  type OpenAIChatResponseMessageLike,
  type OpenAIChatToolCall,
  type OpenAIChatSystemMessage,
  type OpenAIChatToolCallLike,
  type OpenAIChatToolMessage,
  type OpenAIChatUserMessage,
} from './runner/adapters/openai_chat.js'
export {
  fromOpenAIResponsesResponse,
  openAIResponsesModel,
  toOpenAIResponsesInput,
  type OpenAIResponsesContentPartLike,
  type OpenAIResponsesFunctionCallItem,
  type OpenAIResponsesFunctionCallOutputItem,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesMessageItem,
  type OpenAIResponsesModelOptions,
  type OpenAIResponsesOutputItemLike,
  type OpenAIResponsesReasoningItem,
  type OpenAIResponsesReasoningSummary,
  type OpenAIResponsesRequestBody,
  type OpenAIResponsesResponseLike,
  type OpenAIResponsesSummaryLike,
} from './runner/adapters/openai_responses.js'
export {
  aiSdkModel,
  fromAiSdkResult,
  toAiSdkPrompt,
  type AiSdkCallOptions,
  type AiSdkContentLike,
  type AiSdkFunctionTool,
  type AiSdkGenerateResultLike,
  type AiSdkJsonObject,
  type AiSdkJsonValue,
  type AiSdkLanguageModel,
  type AiSdkModelOptions,
  type AiSdkPromptMessage,
  type AiSdkProviderOptions,
  type AiSdkReasoningPart,
  type AiSdkTextPart,
  type AiSdkToolCallPart,
  type AiSdkAssistantMessage,
  type AiSdkSystemMessage,
  type AiSdkToolMessage,
  type AiSdkToolResultOutput,
  type AiSdkToolResultPart,
  type AiSdkUserMessage,
} from './runner/adapters/ai_sdk_model.js'
export {
  anthropicModel,
  fromAnthropicResponse,
  toAnthropicMessages,
  type AnthropicContentBlock,
  type AnthropicMessage,
  type AnthropicModelOptions,
  type AnthropicRedactedThinkingBlock,
  type AnthropicThinkingBlock,
  type AnthropicRequestBody,
  type AnthropicResponseBlockLike,
  type AnthropicResponseLike,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from './runner/adapters/anthropic.js'
export {
  fromGeminiResponse,
  geminiModel,
  toGeminiContents,
  type GeminiCandidateLike,
  type GeminiContent,
  type GeminiFunctionCall,
  type GeminiFunctionCallLike,
  type GeminiFunctionCallPart,
  type GeminiFunctionResponse,
  type GeminiFunctionResponseBody,
  type GeminiFunctionResponsePart,
  type GeminiModelOptions,
  type GeminiPart,
  type GeminiRequestBody,
  type GeminiResponseContentLike,
  type GeminiResponseLike,
  type GeminiResponsePartLike,
  type GeminiSystemInstruction,
  type GeminiTextPart,
  type GeminiToolsEntry,
} from './runner/adapters/gemini.js'
