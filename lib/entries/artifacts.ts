/**
 * `toolsmith/artifacts`: spooled results and the artifact_* tools.
 *
 * @module toolsmith/artifacts
 */
export {
  MemorySpoolReader,
  isSpoolReader,
  type SpoolLine,
  type SpoolLinesOptions,
  type SpoolReader,
  type LineIndex,
} from '../artifacts/spool_reader.js'
export {
  FileSpoolReader,
  FileSpoolStore,
  InMemorySpoolStore,
  type ByteStore,
  type FileSpoolStoreOptions,
  type SpoolInput,
  type SpoolStore,
} from '../artifacts/stores.js'
export {
  ArtifactTool,
  DEFAULT_ARTIFACT_OUTPUT_LIMITS,
  type ArtifactEntry,
  type ArtifactOutputLimits,
  type ArtifactToolMethod,
  type RawArtifactTool,
} from '../artifacts/artifact_tool.js'
export {
  SpooledArtifact,
  type ForgeToolsInput,
  type FromResultOptions,
  type GrepMatch,
  type GrepOptions,
  type SpooledArtifactConstructor,
  type TurnToolCalls,
} from '../artifacts/spooled_artifact.js'
export {
  SpooledJsonArtifact,
  type JsonArrayShape,
  type JsonFormat,
  type JsonObjectShape,
  type JsonPathSegment,
  type JsonScalarShape,
  type JsonShape,
  type SpooledJsonArtifactOptions,
} from '../artifacts/spooled_json_artifact.js'
export {
  SpooledMarkdownArtifact,
  type MarkdownHeading,
  type MarkdownSection,
} from '../artifacts/spooled_markdown_artifact.js'
