/**
 * `toolsmith/providers`: provider definitions and the AI SDK adapter.
 *
 * @module toolsmith/providers
 */
export {
  isToolDescription,
  toToolDescription,
  toolInputSchema,
  type ToolLike,
  type ToolLikeCollection,
} from '../providers/tool_like.js'
export {
  TOOL_NAME_RULES,
  ToolNameMap,
  type ToolNameMapJSON,
  type ToolNameRule,
  type ToolNameRules,
  type ToolRename,
} from '../providers/tool_name_map.js'
export type {
  ProviderToolSet,
} from '../providers/provider_tool_set.js'
export {
  JSON_SCHEMA_DIALECT,
  toJsonSchema,
  type JsonSchema,
  type JsonSchemaNode,
  type ToJsonSchemaOptions,
} from '../providers/json_schema.js'
export {
  OPENAI_STRICT_LIMITS,
  toOpenAIStrictSchema,
  type OpenAIStrictSchemaOptions,
} from '../providers/openai/openai_strict.js'
export {
  PROPERTY_KEY_RULES,
  PropertyKeyMap,
  PropertyKeyMaps,
  type PropertyKeyRename,
  type PropertyKeyRules,
} from '../providers/property_key_map.js'
export {
  flattenRootAlternatives,
  toToolInputSchema,
  type FlattenContext,
} from '../providers/tool_input_schema.js'
export {
  dropOptionalNulls,
} from '../providers/optional_nulls.js'
export {
  toOpenAIResponsesTool,
  toOpenAIResponsesTools,
  toOpenAITool,
  toOpenAITools,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIToolOptions,
} from '../providers/openai/openai.js'
export {
  toAnthropicTool,
  toAnthropicTools,
  type AnthropicInputSchema,
  type AnthropicTool,
  type AnthropicToolOptions,
} from '../providers/anthropic/anthropic.js'
export {
  toGeminiFunctionDeclaration,
  toGeminiFunctionDeclarations,
  toGeminiSchema,
  GeminiType,
  type GeminiFunctionDeclaration,
  type GeminiSchema,
  type GeminiToolOptions,
} from '../providers/gemini/gemini.js'
export {
  toMcpTool,
  toMcpTools,
  type McpInputSchema,
  type McpToolAnnotations,
  type McpToolDefinition,
  type McpToolOptions,
} from '../surfaces/mcp/mcp.js'
export { toMcpCallResult, type McpCallResult } from '../surfaces/mcp/mcp_call_result.js'
export { toToolOutputSchema } from '../providers/tool_output_schema.js'
export {
  DEFAULT_TOOL_RESULT_MAX_BYTES,
  toolResultToText,
  type ToolResultTextOptions,
} from '../providers/tool_result_text.js'
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
} from '../surfaces/ai_sdk/ai_sdk.js'
