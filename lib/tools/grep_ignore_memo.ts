/**
 * The rules the last ignore scan of each searched directory gave, kept
 * (bounded) so `grep` can start ripgrep with them while it scans again.
 *
 * @module
 */

/**
 * The rules the last scan of each searched directory gave, by root and
 * relative path: `grep` starts rg with them while it scans again (a guess
 * only: the run is thrown away when the scan disagrees). Bounded by count
 * and by total size: rules past {@link MAX_REMEMBERED_RULES_CHARS} are not
 * kept, and the whole map holds at most {@link MAX_REMEMBERED_TOTAL_CHARS}
 * characters (≤ 8 MiB of strings), so a process that searches many large
 * trees keeps a few megabytes, not 256 × 1 MiB.
 */
const lastRules = new Map<string, string>()
let lastRulesChars = 0
const MAX_REMEMBERED_SEARCHES = 256
const MAX_REMEMBERED_RULES_CHARS = 1024 * 1024
const MAX_REMEMBERED_TOTAL_CHARS = 4 * 1024 * 1024

/**
 * The rules the last scan for `key` gave, if remembered.
 *
 * @param key - The searched directory: its root and relative path.
 * @returns The rules file's text, `''` for none, `undefined` when unknown.
 * @internal
 */
export function rememberedRules(key: string): string | undefined {
  return lastRules.get(key)
}

/**
 * Remember what a scan for `key` gave.
 *
 * @param key - The searched directory: its root and relative path.
 * @param rules - The rules file's text.
 * @internal
 */
export function rememberRules(key: string, rules: string): void {
  const previous = lastRules.get(key)
  if (previous !== undefined) {
    lastRules.delete(key)
    lastRulesChars -= previous.length + key.length
  }
  if (rules.length > MAX_REMEMBERED_RULES_CHARS) return
  const chars = rules.length + key.length
  // Dropping everything (not the oldest entry) keeps this O(1): a guess
  // that is missing only costs the next search its head start.
  if (lastRules.size >= MAX_REMEMBERED_SEARCHES || lastRulesChars + chars > MAX_REMEMBERED_TOTAL_CHARS) {
    lastRules.clear()
    lastRulesChars = 0
  }
  lastRules.set(key, rules)
  lastRulesChars += chars
}

/**
 * The size of the remembered rules, for specs that check the bound.
 *
 * @returns How many searches are remembered and their characters (keys included).
 * @internal
 */
export function rememberedRulesSize(): { searches: number; chars: number } {
  return { searches: lastRules.size, chars: lastRulesChars }
}
