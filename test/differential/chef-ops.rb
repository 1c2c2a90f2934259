# Runs chef-cli commands for many workspaces in one Ruby process (Ruby and chef-cli load once), in order.
# Input: a JSON file [{ "dir": "/abs/dir", "op": "install" | "fresh-install" | "update" | "push", "args": [...] }, ...].
# `fresh-install` deletes the lock first (chef install after the group moved); `update` is `chef update` with no
# cookbook names (every include fetched again). Output: one JSON line per job on stdout: { "i", "dir", "op", "ok", "error" }.
require "json"
require "stringio"
require "chef-cli/cli"
require "chef-cli/command/install"
require "chef-cli/command/update"
require "chef-cli/command/push"

COMMANDS = { "install" => ChefCLI::Command::Install, "fresh-install" => ChefCLI::Command::Install, "update" => ChefCLI::Command::Update, "push" => ChefCLI::Command::Push }.freeze

jobs = JSON.parse(File.read(ARGV[0]))
out = $stdout.dup
jobs.each_with_index do |job, i|
  result = { "i" => i, "dir" => job["dir"], "op" => job["op"], "ok" => false, "error" => nil }
  begin
    Dir.chdir(job["dir"]) do
      File.delete("Policyfile.lock.json") if job["op"] == "fresh-install" && File.exist?("Policyfile.lock.json")
      cmd = COMMANDS.fetch(job["op"]).new
      ui = ChefCLI::UI.new(out: StringIO.new, err: StringIO.new)
      cmd.ui = ui
      code = cmd.run(job["args"] || [])
      if code == 0
        result["ok"] = true
      else
        result["error"] = ui.err_stream.string.strip
        result["error"] = "exit #{code}" if result["error"].empty?
      end
    end
  rescue Exception => e
    result["error"] = "#{e.class}: #{e.message}"
  end
  out.puts(JSON.generate(result))
  out.flush
end
