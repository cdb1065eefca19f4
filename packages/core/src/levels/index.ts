export { createLevelLadder, DEFAULT_LEVELS, type DefaultLevel, type LevelLadder } from './level-ladder'
