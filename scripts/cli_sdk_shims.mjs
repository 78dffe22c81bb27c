// The command-line bundle's stand-in for `@modelcontextprotocol/server/_shims`
// (see `sdkShims` in bundle_entries.mjs): the SDK's Node shims with the
// cf-worker JSON Schema validator as the default in place of ajv.
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker'
export { default as process } from 'node:process'
