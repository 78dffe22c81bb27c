/**
 * What events and journal rows record in place of args that must not be
 * recorded: shared by core (the executor) and the journal.
 *
 * @module
 */

/** What events record in place of the args when a tool's `redact` throws. */
export const REDACTION_FAILED = '[redaction failed]'

/**
 * What events and journals record in place of args that failed validation:
 * a `redact` written for valid args cannot be trusted with arbitrary input
 * (`({ content, ...rest }) => rest` would pass a stray `password` through).
 */
export const INVALID_ARGS_NOT_RECORDED = '[invalid args not recorded]'
