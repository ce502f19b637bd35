import * as Stream from "effect/Stream"
import type { Member } from "../services/waitlist/Waitlist.ts"

export const formats = ["csv", "jsonl"] as const
export type Format = typeof formats[number]

// Quoted: the RFC 4180 specials, semicolons (the separator of some spreadsheets), every control character (so that no reader's line or NUL handling
// can alter one) and edge spaces. Inside quotes every character stands for itself.
const needsQuotes = /[",;\r\n\u0000-\u001f\u007f]|^\s|\s$/u

const csvField = (value: string) => needsQuotes.test(value) ? `"${value.replaceAll("\"", "\"\"")}"` : value

const csvRow = (member: Member) => `${csvField(member.email)},${member.registeredAt.toISOString()}\r\n`

const jsonlRow = (member: Member) =>
  `${JSON.stringify({ email: member.email, registeredAt: member.registeredAt.toISOString() })}\n`

/**
 * Members as text, in the order given: RFC 4180 CSV (CRLF, a header row) or JSON Lines. Both keep
 * every address exactly: CSV by quoting, JSON Lines by JSON's escapes.
 */
export const encode = <E, R>(members: Stream.Stream<Member, E, R>, format: Format): Stream.Stream<string, E, R> =>
  format === "csv"
    ? Stream.concat(Stream.succeed("email,registered_at\r\n"), Stream.map(members, csvRow))
    : Stream.map(members, jsonlRow)
