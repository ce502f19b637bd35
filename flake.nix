{
  description = "Request-coordination service: a development shell with Node.js and PostgreSQL";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          # `nodejs` is nixpkgs' current LTS; it runs npm, while the npm scripts themselves run on the
          # project's pinned `node` devDependency.
          packages = [ pkgs.nodejs pkgs.postgresql_15 ];
          shellHook = ''
            export PGDATA="$PWD/.data/postgres"
            echo "node $(node --version), $(postgres --version)"
            echo "A local PostgreSQL: initdb --auth=trust -U postgres && pg_ctl -l .data/postgres.log -o '-k /tmp' start"
          '';
        };
      });
    };
}
