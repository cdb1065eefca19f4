import { expectTypeOf } from 'vitest'
import { invalidOptions, StrataError, type StrataErrorCode, type StrataErrorDetails } from './index'

declare const caught: unknown

// isInstance with a code narrows the code and types the details of that code.
if (StrataError.isInstance(caught, 'STRATA_SEQ_CONFLICT')) {
  expectTypeOf(caught.code).toEqualTypeOf<'STRATA_SEQ_CONFLICT'>()
  expectTypeOf(caught.details.threadId).toEqualTypeOf<string | undefined>()
  expectTypeOf(caught.details.expectedSeq).toEqualTypeOf<number | undefined>()
  expectTypeOf(caught.details.expectedVersion).toEqualTypeOf<number | undefined>()
  expectTypeOf(caught.details.actualSeq).toEqualTypeOf<number | undefined>()
  expectTypeOf(caught).toEqualTypeOf<StrataError<'STRATA_SEQ_CONFLICT'>>()
}
if (StrataError.isInstance(caught, 'STRATA_NOT_SERIALIZABLE')) {
  expectTypeOf(caught.details.path).toEqualTypeOf<string>()
  // @ts-expect-error: a code narrows to its own details, not another code's
  expectTypeOf(caught.details.expectedSeq).toEqualTypeOf<number>()
}
if (StrataError.isInstance(caught, 'STRATA_STORE_FAILED')) {
  expectTypeOf(caught.details.key).toEqualTypeOf<string | undefined>()
}

// Without a code: any Strata error, its code the union.
if (StrataError.isInstance(caught)) {
  expectTypeOf(caught.code).toEqualTypeOf<StrataErrorCode>()
}

// The constructor types details by the code it is given.
new StrataError({
  code: 'STRATA_SEQ_CONFLICT',
  message: 'conflict',
  details: { threadId: 't', expectedSeq: 1, actualSeq: 2 },
})
new StrataError({
  code: 'STRATA_SEQ_CONFLICT',
  message: 'conflict',
  // @ts-expect-error: expectedSeq is a number
  details: { threadId: 't', expectedSeq: 'one' },
})
new StrataError({
  code: 'STRATA_NOT_SERIALIZABLE',
  message: 'not JSON',
  // @ts-expect-error: path is required
  details: {},
})

// Every code has a details type, and the codes are exactly the keys of the map.
expectTypeOf<keyof StrataErrorDetails>().toEqualTypeOf<StrataErrorCode>()
expectTypeOf(invalidOptions).returns.toBeNever()
