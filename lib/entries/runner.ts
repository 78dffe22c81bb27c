/**
 * `toolsmith/runner`: turnRunner, the journals and the model adapters.
 *
 * @module toolsmith/runner
 */
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
} from '../journal/contract.js'
export { errorToJson, outputToJson } from '../journal/output.js'
export {
  isClaimingJournal,
  type ClaimRequest,
  type ClaimResult,
  type ClaimState,
  type ClaimedRow,
  type ClaimingJournal,
  type ToolCallClaim,
  type TurnCheckpoint,
} from '../journal/claiming.js'
export { JsonlJournal, type JsonlJournalOptions } from '../journal/jsonl_journal.js'
export { ARGS_NOT_KEPT, type CheckpointKeyInput } from '../runner/checkpoint_codec.js'
export { SqliteJournal } from '../journal/sqlite_journal.js'
export {
  PostgresJournal,
  postgresJournalMigration,
  type PgPoolClient,
  type PgPoolLike,
  type PgQueryConfig,
  type PgQueryResult,
  type PostgresJournalOptions,
} from '../journal/postgres_journal.js'
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
} from '../providers/messages.js'
export type {
  ModelEndEvent,
  ModelStartEvent,
  NetworkRequestTurnEvent,
  ProtectedPathCreatedTurnEvent,
  RetryWarningEvent,
  ToolEndEvent,
  PermissionDecisionTurnEvent,
  ToolStartEvent,
  ToolOutputTurnEvent,
  TurnEndEvent,
  TurnEvent,
  TurnEventListener,
  TurnStartEvent,
} from '../runner/events.js'
export {
  toolDefinition,
} from '../runner/tool_definition.js'
export {
  scriptedModel,
  type ScriptedStep,
} from '../runner/scripted_model.js'
export {
  TurnRunner,
  type TurnIdentity,
  type TurnResult,
  type TurnResumeOptions,
  type TurnRunOptions,
  type TurnRunnerOptions,
} from '../runner/turn_runner.js'
export { DEFAULT_CLAIM_LEASE_MS } from '../journal/claims.js'
export type { TurnTelemetryOptions } from '../telemetry/spans.js'
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
} from '../providers/openai/openai_chat_model.js'
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
} from '../providers/openai/openai_responses_model.js'
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
  type AiSdkProviderMetadata,
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
} from '../surfaces/ai_sdk/ai_sdk_model.js'
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
} from '../providers/anthropic/anthropic_model.js'
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
} from '../providers/gemini/gemini_model.js'
