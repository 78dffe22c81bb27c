import { describe, expect, it } from 'vitest'
import {
  E_ARTIFACT_QUERY_FAILED,
  MemorySpoolReader,
  SpooledArtifact,
  SpooledMarkdownArtifact,
  ToolCall,
  createDispatchContext,
} from '../../lib/index.js'

const text = [
  '# Guide', //            1
  'intro', //              2
  '', //                   3
  '## Install', //         4
  '```sh', //              5
  '# not a heading', //    6
  '```', //                7
  'npm i', //              8
  '### Windows ###', //    9
  'use WSL', //           10
  'Usage', //             11
  '-----', //             12
  'run it', //            13
  '# Appendix', //        14
  'end', //               15
].join('\n')

const doc = new SpooledMarkdownArtifact(MemorySpoolReader.from(text))

describe('SpooledMarkdownArtifact', () => {
  it('outlines ATX and setext headings, skipping fenced code', async () => {
    expect(await doc.outline()).toEqual([
      { level: 1, text: 'Guide', line: 1 },
      { level: 2, text: 'Install', line: 4 },
      { level: 3, text: 'Windows', line: 9 },
      { level: 2, text: 'Usage', line: 11 },
      { level: 1, text: 'Appendix', line: 14 },
    ])
  })

  it('a section runs to the next heading of the same or higher level', async () => {
    expect(await doc.section('install')).toBe(['## Install', '```sh', '# not a heading', '```', 'npm i', '### Windows ###', 'use WSL'].join('\n'))
    expect(await doc.section('## Windows')).toBe('### Windows ###\nuse WSL')
    expect(await doc.section(11)).toBe('Usage\n-----\nrun it')
    expect(await doc.sectionRange('Appendix')).toEqual({ level: 1, text: 'Appendix', line: 14, endLine: 15 })
  })

  it('names the available headings when none matches', async () => {
    await expect(doc.section('Missing')).rejects.toThrow(E_ARTIFACT_QUERY_FAILED)
    await expect(doc.section('Missing')).rejects.toThrow(/# Guide \(line 1\)/)
    await expect(doc.section(2)).rejects.toThrow(E_ARTIFACT_QUERY_FAILED)
  })

  it('forges md_outline and md_section', async () => {
    const call = new ToolCall({ id: 'm', tool: 'read', args: { path: 'README.md' } }).complete(doc)
    const tools = SpooledArtifact.forgeTools([call])
    expect(tools.has('md_outline') && tools.has('md_section') && tools.has('artifact_cat')).toBe(true)
    const ctx = createDispatchContext()
    expect(await tools.get('md_outline')!.executor(ctx)({ callId: 'm' })).toBe(
      ['# Guide (line 1)', '  ## Install (line 4)', '    ### Windows (line 9)', '  ## Usage (line 11)', '# Appendix (line 14)', '[5 headings]'].join('\n'),
    )
    expect(await tools.get('md_section')!.executor(ctx)({ callId: 'm', heading: 'Usage' })).toBe(
      '[section "Usage", lines 11-13]\nUsage\n-----\nrun it\n[lines 11-13 of 15]',
    )
  })

  it('md_section pages a long section within the limits', async () => {
    const long = `# Big\n${Array.from({ length: 2000 }, (_, i) => `para ${i}`).join('\n')}\n# Next\n`
    const artifact = new SpooledMarkdownArtifact(MemorySpoolReader.from(long))
    const call = new ToolCall({ id: 'm', tool: 'read', args: {} }).complete(artifact)
    const out = (await SpooledArtifact.forgeTools([call], { maxLines: 50 })
      .get('md_section')!
      .executor(createDispatchContext())({ callId: 'm', heading: 'Big' })) as string
    expect(out.split('\n')).toHaveLength(52)
    expect(out).toContain('continue with artifact_cat start=51 end=2001')
  })
})
