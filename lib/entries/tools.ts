/**
 * `toolsmith/tools`: the sandbox and the five built-in tools.
 *
 * @module toolsmith/tools
 */
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
} from '../sandbox/sandbox.js'
export type { SyscallFilterStatus } from '../sandbox/sandbox.js'
export {
  GIT_REMOTE_SUBCOMMANDS,
  NETWORK_EXECUTABLES,
  assertOfflineCommand,
} from '../sandbox/network/network.js'
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
} from '../tools/index.js'
