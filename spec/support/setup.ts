// Runs before every spec file (vitest setupFiles).
import { afterAll } from 'vitest'
import { removeTrackedDirs } from './temp_dirs.js'

afterAll(removeTrackedDirs)
