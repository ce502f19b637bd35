import { assert, describe, it } from "@effect/vitest"
import { termsText } from "../src/http/ApprovalPageHtml.ts"

/** The approval page's sentence of an offer's terms: a fee of zero is not mentioned, however written. */
describe("the approval page's terms", () => {
  const fee = (amount: string) => ({ amount, currency: "EUR" })

  it("does not mention a zero fee of an offer that cannot be cancelled, in any of its spellings", () => {
    for (const amount of ["0", "0.00", "0.000"]) {
      assert.strictEqual(
        termsText({ cancellable: false, cancellationFee: fee(amount) }),
        "Cannot be cancelled.",
        amount
      )
    }
  })

  it("names any other fee as written, and every fee of an offer that can be cancelled", () => {
    assert.strictEqual(
      termsText({ cancellable: false, cancellationFee: fee("0.01") }),
      "Cannot be cancelled; cancelling costs 0.01 EUR."
    )
    assert.strictEqual(
      termsText({ cancellable: true, cancellationFee: fee("0.00") }),
      "Can be cancelled; cancelling costs 0.00 EUR."
    )
  })
})
