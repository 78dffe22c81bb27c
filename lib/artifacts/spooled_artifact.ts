/**
 * PLACEHOLDER, replaced by the artifacts work: only the type surface tool.ts needs.
 *
 * @module
 */

/** A tool's output, stored in a spool and read in pieces. */
export class SpooledArtifact {
  /** @param reader - The spool reader. */
  constructor(readonly reader: unknown) {}
}

/** A constructor of a {@link SpooledArtifact} subclass. */
export type SpooledArtifactConstructor<A extends SpooledArtifact = SpooledArtifact> = new (reader: any) => A
