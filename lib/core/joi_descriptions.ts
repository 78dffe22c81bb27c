/**
 * joi's `describe()`, once per schema. A description costs more than it
 * looks: joi checks every one against its own meta-schemas (loading them the
 * first time in a process), and a provider's definition of a tool used to
 * pay that three times — the tool's `describe()`, a `validator.build()` of
 * that description back into a schema, and the rebuilt schema's
 * `describe()`. joi schemas are immutable, so one description per schema
 * object is always right.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import type { Description, Schema } from '../validation.js'

const descriptions = new WeakMap<Schema, Description>()
const snapshots = new WeakMap<object, Schema>()

/**
 * `schema.describe()`, computed once per schema object.
 *
 * @param schema - A joi schema.
 * @returns The shared description: read it, never change it (hand out {@link describeSnapshot} instead).
 * @internal
 */
export function describeOnce(schema: Schema): Description {
  let description = descriptions.get(schema)
  if (description === undefined) {
    description = schema.describe()
    descriptions.set(schema, description)
  }
  return description
}

/**
 * A fresh copy of `schema`'s description, remembered as coming from
 * `schema` so that {@link schemaOfSnapshot} can hand the live schema back
 * instead of rebuilding it.
 *
 * @param schema - A joi schema.
 * @returns A description the caller owns.
 * @internal
 */
export function describeSnapshot(schema: Schema): Description {
  const copy = structuredClone(describeOnce(schema))
  snapshots.set(copy, schema)
  return copy
}

/**
 * The live schema a description was copied from by {@link describeSnapshot},
 * while it still reads as that schema's description (a snapshot the caller
 * changed is rebuilt like any other).
 *
 * @param description - A joi description.
 * @returns The schema, or `undefined` when the description is not an unchanged snapshot.
 * @internal
 */
export function schemaOfSnapshot(description: Description): Schema | undefined {
  const schema = snapshots.get(description)
  if (schema === undefined) return undefined
  return isDeepStrictEqual(description, describeOnce(schema)) ? schema : undefined
}
