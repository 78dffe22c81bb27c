import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mean, sum } from '../src/stats.js'

test('sum adds every value', () => {
  assert.equal(sum([1, 2, 3]), 6)
})

test('mean averages every value', () => {
  assert.equal(mean([2, 4, 6]), 4)
})

test('mean of nothing is 0', () => {
  assert.equal(mean([]), 0)
})
