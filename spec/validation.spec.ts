import { describe, expect, it } from 'vitest'
import { ValidationException, asyncValidateOrThrow, validateOrThrow, validator } from '../lib/index.js'
import { forbiddenOption } from '../lib/validation.js'

const schema = validator.object({
  name: validator.string().required(),
  age: validator.number().integer().min(0),
  tags: validator.array().items(validator.string()).default([]),
})

describe('validateOrThrow', () => {
  it('returns the validated value with defaults', () => {
    expect(validateOrThrow(schema, { name: 'a' })).toEqual({ name: 'a', tags: [] })
  })

  it('throws ValidationException (422) keeping every joi detail', () => {
    let error: unknown
    try {
      validateOrThrow(schema, { age: -1, tags: [1], other: true })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ValidationException)
    const v = error as ValidationException
    expect(v.status).toBe(422)
    expect(v.code).toBe('E_VALIDATION')
    expect(v.paths.sort()).toEqual(['age', 'name', 'other', 'tags.0'])
    expect(v.details).toHaveLength(4)
    for (const detail of v.details) expect(v.message).toContain(detail.message)
    expect(validator.isError(v.cause)).toBe(true)
  })
})

describe('asyncValidateOrThrow', () => {
  it('runs async external rules and reports failures the same way', async () => {
    const lookup = validator.object({
      user: validator.string().external(async (value: string) => {
        if (value !== 'ada') throw new Error('unknown user')
        return value.toUpperCase()
      }),
    })
    await expect(asyncValidateOrThrow(lookup, { user: 'ada' })).resolves.toEqual({ user: 'ADA' })
    await expect(asyncValidateOrThrow(schema, {})).rejects.toBeInstanceOf(ValidationException)
  })
})

describe('forbiddenOption', () => {
  const options = validator.object({ kept: validator.string(), gone: forbiddenOption('"gone" was removed: drop it') })

  it('refuses the option by name with its message, and leaves its absence alone, even under presence: required', () => {
    expect(options.validate({ kept: 'x', gone: 1 }).error?.details.map((d) => [d.type, d.message])).toEqual([['any.unknown', '"gone" was removed: drop it']])
    expect(options.validate({ kept: 'x', gone: undefined }).error).toBeUndefined()
    expect(options.validate({ kept: 'x' }, { presence: 'required' }).error).toBeUndefined()
    // The control: the other key is required under that preference.
    expect(options.validate({}, { presence: 'required' }).error?.details.map((d) => d.path.join('.'))).toEqual(['kept'])
  })
})
