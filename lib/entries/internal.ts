/**
 * `toolsmith/internal`: helpers the package uses between its layers. They
 * were once reachable from the root and stay importable here for
 * code that already depends on them, with no stability promise: they may
 * change in any release.
 *
 * @internal
 * @module toolsmith/internal
 */
export {
  hasBrand,
  isPlainObject,
  isPromiseLike,
} from '../utils/guards.js'
export {
  utf8BoundaryBefore,
  utf8Prefix,
} from '../utils/utf8.js'
export {
  warnIdempotencyKeyUnreachable,
} from '../core/tool.js'
export {
  LineIndexBuilder,
  type PositionedRead,
  SPOOL_CHUNK_BYTES,
  readLine,
  scanLines,
} from '../artifacts/spool_reader.js'
export {
  spoolChunks,
} from '../artifacts/stores.js'
export {
  appliesTo,
  clipBytes,
} from '../artifacts/artifact_tool.js'
export {
  renderRange,
} from '../artifacts/spooled_artifact.js'
export {
  parseJsonPath,
} from '../artifacts/spooled_json_artifact.js'
export {
  toolLikeList,
} from '../providers/tool_like.js'
export {
  buildToolSet,
} from '../providers/provider_tool_set.js'
export {
  resolveMaxResultBytes,
} from '../providers/tool_result_text.js'
export {
  assertFilter,
  capJson,
  isUnsafeToRepeat,
  matchesFilter,
  normaliseRow,
  safeJson,
} from '../journal/output.js'
export {
  retryWarning,
  type RetryWarningOptions,
} from '../runner/retry_warning.js'
export { redactToolInput } from '../journal/output.js'
