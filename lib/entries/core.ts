/**
 * `toolsmith/core`: validation, exceptions, identities and the Tool core.
 *
 * @module toolsmith/core
 */
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
} from '../validation.js'
export {
  BaseException,
  E_ARTIFACT_QUERY_FAILED,
  E_INVALID_INITIAL_REGISTRY_VALUE,
  E_INVALID_INITIAL_TOOL_CALL_VALUE,
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_OPTIONS,
  E_INVALID_POLICY,
  E_INVALID_TOOL_ARGS,
  E_INVALID_TOOL_OUTPUT,
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
} from '../exceptions.js'
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
} from '../exception_aliases.js'
export {
  canonicalStringify,
} from '../utils/canonical_json.js'
export {
  sha256Hex,
} from '../utils/hash.js'
export {
  SPOOLED_ARTIFACT_BRAND,
  isSpooledArtifact,
  type ArtifactClass,
  type SpooledArtifactLike,
} from '../contracts/artifact.js'
export {
  Registry,
} from '../core/registry.js'
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
  type ToolOutputChunk,
} from '../core/dispatch_context.js'
export { CallRun, type CallRunOptions, type RunIdentity } from '../core/pipeline/call_run.js'
export type { CallHooks, PipelineCallEnd, PipelineCallStart, SettledOutput } from '../core/pipeline/call_hooks.js'
export type { SpoolRestorer } from '../journal/claims.js'
export {
  createCallContext,
  type CallContextOptions,
  type ProviderCallContext,
} from '../core/call_context.js'
export type {
  ArgumentRoles,
} from '../core/argument_roles.js'
export type {
  TelemetryOptions,
} from '../telemetry/spans.js'
export {
  callIdOf,
  idempotencyKeyOf,
  strictCallIdOf,
} from '../core/call_identity.js'
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
  type StructuredToolResult,
  type ValidCall,
} from '../core/tool.js'
export type {
  InferToolArgs,
  InferToolInput,
  StandardInputSchema,
  StandardJsonSchemaProps,
  StandardPathSegment,
  StandardSchemaFailure,
  StandardSchemaIssue,
  StandardSchemaLike,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaSuccess,
  StandardSchemaTypes,
  ToolInputSchema,
} from '../core/standard_schema.js'
export {
  defineTool,
  getDefinedToolMetadata,
  type DefineToolOptions,
  type DefinedToolMetadata,
} from '../core/define_tool.js'
export {
  ToolRegistry,
  type MergeOptions,
} from '../core/tool_registry.js'
export {
  toolList,
  type ToolCollection,
} from '../core/tool_collection.js'
export {
  ToolCall,
  type RawToolCall,
  type ToolCallJSON,
} from '../core/tool_call.js'
export {
  PathGlob,
} from '../permissions/glob.js'
export {
  CommandPrefix,
  commandSubject,
  type CommandSubject,
} from '../permissions/command_match.js'
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
} from '../permissions/rules.js'
export {
  PermissionPolicy,
  type PathResolver,
  type PolicyCall,
  type PolicyVerdict,
  type ResolvedSubjectPath,
} from '../permissions/policy.js'
export {
  Permissions,
  type ApprovalAnswer,
  type ApprovalRequest,
  type ApprovalResponse,
  type Approver,
  type PermissionsOptions,
} from '../permissions/permissions.js'
export {
  loadPermissionPolicy,
  parsePermissionPolicy,
} from '../permissions/load_policy.js'
