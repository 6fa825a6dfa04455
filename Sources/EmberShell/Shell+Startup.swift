import EmberEngine
import EmberCore
import EmberLua
import EmberQL
import Foundation

/// What runs at start: the plugins, then the rc file.
extension Shell {
    /// Ember's configuration directory: `$XDG_CONFIG_HOME/ember`, else `$HOME/.config/ember`.
    public static func configurationDirectory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/ember" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/ember" }
        return nil
    }

    /// Loads every `*.lua` of `CONFIG/plugins` and then of `--plugins DIR` (each in name order),
    /// then runs `CONFIG/init.lua` in the session's environment unless `--no-rc`.
    ///
    /// Nothing here stops the session: a plugin that fails is reported and skipped (with the
    /// commands it added before failing), an rc file that fails is reported. The Lua runtime is
    /// only created when there is something to run, so a plain start stays fast.
    public func loadStartupScripts(configurationDirectory: String?) {
        var plugins: [String] = []
        if let configurationDirectory { plugins += Self.luaFiles(in: configurationDirectory + "/plugins") }
        if let directory = options.pluginDirectory {
            guard FileManager.default.fileExists(atPath: directory) else {
                report(.command(ErrorCode.ioError, "cannot load plugins from \(directory): no such directory"))
                return loadRCFile(configurationDirectory)
            }
            plugins += Self.luaFiles(in: directory)
        }
        for file in plugins { loadPlugin(file) }
        loadRCFile(configurationDirectory)
    }

    /// Runs one plugin file; on failure reports it and removes what it added.
    func loadPlugin(_ path: String) {
        let name = (path as NSString).lastPathComponent
        do throws(ShellError) {
            let source = try readScript(path)
            let runtime = try scripting()
            do throws(LuaError) {
                try runtime.loadPlugin(source: Self.strippingShebang(source), file: name)
            } catch {
                let added = runtime.removeCommands(addedBy: name)
                pluginCommands.removeAll { added.contains($0.description.name) && $0.plugin == name }
                throw ShellError.lua(LuaError(error.kind, message: "plugin \(name) failed to load (skipped): \(error.message)", traceback: error.traceback))
            }
        } catch {
            report(error)
        }
    }

    /// Runs `CONFIG/init.lua` when it exists and `--no-rc` was not given.
    func loadRCFile(_ configurationDirectory: String?) {
        guard options.loadsRCFile, let configurationDirectory else { return }
        let path = configurationDirectory + "/init.lua"
        guard FileManager.default.fileExists(atPath: path) else { return }
        do throws(ShellError) {
            let source = try readScript(path)
            let runtime = try scripting()
            do throws(LuaError) {
                show(.values(try runtime.run(Self.strippingShebang(source), name: "@" + path, in: .session)))
            } catch {
                throw ShellError.lua(error)
            }
        } catch {
            report(error)
        }
        settle()
    }

    /// The `*.lua` files of `directory`, sorted by name.
    static func luaFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".lua") }.sorted().map { directory + "/" + $0 }
    }
}
