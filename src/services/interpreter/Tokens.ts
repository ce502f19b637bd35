// ---------------------------------------------------------------------------------------------------
// Tokens. Every reader below looks at a bounded number of tokens from where it starts, so reading is
// linear in the length of the request (no regular expression runs over the whole text).

export interface Token {
  readonly text: string
  readonly lower: string
  readonly kind: "word" | "num" | "sym"
  /** Whitespace precedes it: "7pm" is two tokens without a gap, "7 pm" two with one. */
  readonly gap: boolean
}

const letter = /[\p{L}\p{M}]/u
const space = /\s/u
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const isLetter = (c: string | undefined) => c !== undefined && letter.test(c)

export const tokenize = (s: string): Array<Token> => {
  const chars = Array.from(s)
  const tokens: Array<Token> = []
  let gap = true
  let i = 0
  while (i < chars.length) {
    const c = chars[i]!
    if (space.test(c)) {
      gap = true
      i++
      continue
    }
    let j = i + 1
    let kind: Token["kind"] = "sym"
    if (isDigit(c)) {
      kind = "num"
      while (isDigit(chars[j]) || ((chars[j] === "," || chars[j] === ".") && isDigit(chars[j + 1]))) j++
    } else if (isLetter(c)) {
      kind = "word"
      while (isLetter(chars[j]) || ((chars[j] === "'" || chars[j] === "-") && isLetter(chars[j + 1]))) j++
    }
    const text = chars.slice(i, j).join("")
    tokens.push({ text, lower: text.toLowerCase(), kind, gap })
    gap = false
    i = j
  }
  return tokens
}

export const stripAccents = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "")
