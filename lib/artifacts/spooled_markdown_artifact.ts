/**
 * `SpooledMarkdownArtifact`: a Markdown result, read by outline and section.
 *
 * @module
 */
import { E_ARTIFACT_QUERY_FAILED } from '../exceptions.js'
import { utf8Prefix } from '../utils/utf8.js'
import { validator } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { clipBytes, type ArtifactOutputLimits, type ArtifactToolMethod } from './artifact_tool.js'
import { SpooledArtifact, renderRange } from './spooled_artifact.js'

/** One heading of a Markdown document. */
export interface MarkdownHeading {
  /** 1 for `#`, … 6 for `######` (setext: 1 for `===`, 2 for `---`). */
  level: number
  /** The heading text, without markers. */
  text: string
  /** 1-based line of the heading text. */
  line: number
}

/** A heading with the extent of its section. */
export interface MarkdownSection extends MarkdownHeading {
  /** 1-based last line of the section (before the next heading of the same or a higher level). */
  endLine: number
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/
// A line that could be the text of a setext heading (a paragraph line).
const NOT_PARAGRAPH = /^(?: {4}|\t| {0,3}(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$)|`{3}|~{3}))/

/**
 * A Markdown result, navigated by headings.
 *
 * @remarks
 * ATX (`## Title`) and setext (`Title` over `===`/`---`) headings are found;
 * lines inside fenced code blocks are not headings. The outline is built in
 * one streaming pass and cached. Line numbers are 1-based.
 *
 * @example
 * ```ts
 * const doc = await SpooledMarkdownArtifact.fromResult('# Intro\nhi\n## Usage\nrun it\n')
 * await doc.outline()          // [{ level: 1, text: 'Intro', line: 1 }, { level: 2, text: 'Usage', line: 3 }]
 * await doc.section('Usage')   // '## Usage\nrun it'
 * ```
 */
export class SpooledMarkdownArtifact extends SpooledArtifact {
  /** The base methods plus `md_outline` and `md_section`. */
  static override readonly toolMethods: readonly ArtifactToolMethod<any>[] = Object.freeze([
    ...SpooledArtifact.toolMethods,
    mdOutlineMethod(),
    mdSectionMethod(),
  ])

  #outline: Promise<MarkdownHeading[]> | undefined

  /**
   * Every heading, in order.
   *
   * @returns The headings (a fresh array each call).
   */
  async outline(): Promise<MarkdownHeading[]> {
    this.#outline ??= this.#scanOutline()
    return (await this.#outline).map((h) => ({ ...h }))
  }

  /**
   * Find a section.
   *
   * @param heading - The heading's text (case-insensitive, leading `#`s
   *   ignored; the first match wins) or the 1-based line of a heading.
   * @returns The heading and the last line of its section.
   * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} naming the available headings when none matches.
   */
  async sectionRange(heading: string | number): Promise<MarkdownSection> {
    const outline = await this.outline()
    const at = findHeading(outline, heading)
    if (at === -1) {
      const listed = outline.slice(0, 30).map((h) => `${'#'.repeat(h.level)} ${h.text} (line ${h.line})`)
      throw new E_ARTIFACT_QUERY_FAILED(
        `No heading ${JSON.stringify(heading)}; ` +
          (listed.length ? `headings: ${listed.join('; ')}${outline.length > 30 ? '; …' : ''}` : 'the document has no headings'),
      )
    }
    const found = outline[at]!
    const next = outline.slice(at + 1).find((h) => h.level <= found.level)
    return { ...found, endLine: next ? next.line - 1 : await this.lineCount() }
  }

  /**
   * The text of a section, heading included, up to the next heading of the
   * same or a higher level.
   *
   * @param heading - Heading text or line; see {@link SpooledMarkdownArtifact.sectionRange}.
   * @returns The section's lines joined by `\n`.
   * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} when no heading matches.
   */
  async section(heading: string | number): Promise<string> {
    const range = await this.sectionRange(heading)
    return this.cat(range.line, range.endLine)
  }

  async #scanOutline(): Promise<MarkdownHeading[]> {
    const headings: MarkdownHeading[] = []
    let fence: string | undefined
    let previous: { text: string; line: number; paragraph: boolean } | undefined
    for await (const { text, index } of this.scan(1, undefined, { maxLineBytes: 4096 })) {
      const line = index + 1
      const opened = FENCE.exec(text)
      if (fence !== undefined) {
        if (opened && opened[1]![0] === fence[0] && opened[1]!.length >= fence.length && text.trim() === opened[1]) {
          fence = undefined
        }
        previous = undefined
        continue
      }
      if (opened) {
        fence = opened[1]!
        previous = undefined
        continue
      }
      const atx = ATX.exec(text)
      if (atx) {
        const title = (atx[2] ?? '').replace(/[ \t]+#+$/, '').replace(/^#+$/, '').trim()
        headings.push({ level: atx[1]!.length, text: title, line })
        previous = undefined
        continue
      }
      const setext = SETEXT.exec(text)
      if (setext && previous?.paragraph) {
        headings.push({ level: setext[1]![0] === '=' ? 1 : 2, text: previous.text.trim(), line: previous.line })
        previous = undefined
        continue
      }
      previous = { text, line, paragraph: text.trim() !== '' && !NOT_PARAGRAPH.test(text) }
    }
    return headings
  }
}

function findHeading(outline: MarkdownHeading[], heading: string | number): number {
  if (typeof heading === 'number') return outline.findIndex((h) => h.line === heading)
  const wanted = heading.replace(/^\s*#+\s*/, '').trim().toLowerCase()
  return outline.findIndex((h) => h.text.toLowerCase() === wanted)
}

function mdOutlineMethod(): ArtifactToolMethod<SpooledMarkdownArtifact> {
  return {
    toolName: 'md_outline',
    description: 'List the headings of an earlier Markdown result, with their line numbers.',
    inputSchema: lazyObject(() => validator.object({})),
    run: async (artifact, _args: Record<string, never>, limits: ArtifactOutputLimits) => {
      const outline = await (artifact as SpooledMarkdownArtifact).outline()
      if (outline.length === 0) return `[no headings in ${await artifact.lineCount()} lines]`
      const shown = outline
        .slice(0, limits.maxLines)
        .map((h) => `${'  '.repeat(h.level - 1)}${'#'.repeat(h.level)} ${utf8Prefix(h.text, limits.maxLineBytes)} (line ${h.line})`)
      const note =
        outline.length > shown.length
          ? `[showing ${shown.length} of ${outline.length} headings; the rest start at line ${outline[shown.length]!.line}]`
          : `[${outline.length} headings]`
      return clipBytes(`${shown.join('\n')}\n${note}`, limits.maxBytes)
    },
  }
}

function mdSectionMethod(): ArtifactToolMethod<SpooledMarkdownArtifact> {
  return {
    toolName: 'md_section',
    description:
      'Read one section of an earlier Markdown result: from a heading (its text, or its line number from md_outline) to the next heading of the same or a higher level.',
    inputSchema: lazyObject(() => validator.object({
      heading: validator
        .alternatives()
        .try(validator.string().min(1), validator.number().integer().min(1))
        .required()
        .description('Heading text (case-insensitive) or its 1-based line number'),
    })),
    run: async (artifact, args: { heading: string | number }, limits: ArtifactOutputLimits) => {
      const range = await (artifact as SpooledMarkdownArtifact).sectionRange(args.heading)
      const body = await renderRange(artifact, range.line, range.endLine, limits)
      return clipBytes(`[section "${utf8Prefix(range.text, 200)}", lines ${range.line}-${range.endLine}]\n${body}`, limits.maxBytes)
    },
  }
}
