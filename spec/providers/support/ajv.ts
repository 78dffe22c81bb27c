/** An ajv instance for draft 2020-12, as strict as ajv gets, with formats left to joi. */
import * as ajv2020 from 'ajv/dist/2020.js'

// ajv is CommonJS: under NodeNext the class is the module's `default` export, one level down.
const Ajv2020 = ajv2020.default.default ?? ajv2020.default

/**
 * Strict mode rejects unknown keywords and ambiguous schemas, so a schema it
 * compiles is one every 2020-12 validator reads the same way. Formats are not
 * validated: ajv needs ajv-formats for that (not a dependency), and joi's
 * checks are stricter anyway (listed as a documented gap).
 */
export function createAjv() {
  return new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false, allErrors: true })
}
