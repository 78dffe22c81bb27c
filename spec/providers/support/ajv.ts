/** An ajv instance for draft 2020-12, as strict as ajv gets, with formats left to joi. */
import Ajv2020Module from 'ajv/dist/2020.js'

// ajv ships CommonJS with a default export; under NodeNext the class is on `.default`.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module }).default ?? Ajv2020Module

/**
 * Strict mode rejects unknown keywords and ambiguous schemas, so a schema it
 * compiles is one every 2020-12 validator reads the same way. Formats are not
 * validated: ajv needs ajv-formats for that (not a dependency), and joi's
 * checks are stricter anyway (listed as a documented gap).
 */
export function createAjv() {
  return new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false, allErrors: true })
}
