import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

/** Modules, never a package's whole entry point (docs/PERFORMANCE.md). */
const moduleImports = {
  paths: ["effect", "@effect/platform-node", "@effect/sql-pg"].map((name) => ({
    name,
    message: `Import the module used (${name}/Module), not the package's entry point.`
  })),
  patterns: [{
    regex: "^effect/(ai|cli|cluster|http|http-api|sql|workflow)$",
    message: "Import the module used (effect/http/HttpRouter, ...), not the folder's entry point."
  }]
}

export default tseslint.config(
  { ignores: ["node_modules/**", ".data/**", "scratch/**", "dist/**"] },
  ...tseslint.configs.recommended,
  {
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }]
    }
  },
  {
    // The service imports the modules it uses, never a package's whole entry point (docs/PERFORMANCE.md).
    files: ["src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", moduleImports] }
  },
  {
    // The contract imports only effect (the project's STYLE.md, ../shared/STYLE.md, not in this repository): anyone
    // can read it without another package. A bare "effect" is left to `moduleImports`' own message.
    files: ["src/schema/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        ...moduleImports,
        patterns: [...moduleImports.patterns, {
          regex: "^(?!effect(/|$)|\\.{1,2}/)",
          message: "src/schema imports only effect and its own modules: put what needs a package in src/services."
        }]
      }]
    }
  }
)
