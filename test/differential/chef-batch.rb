# Runs `chef install` for many workspaces in one Ruby process (Ruby and chef-cli load once).
# Input: a JSON file [{ "dir": "/abs/dir", "policyfile": "Policyfile.rb" }, ...], run in order.
# Output: one JSON line per job on stdout: { "dir", "ok", "error" }.
require "json"
require "stringio"
require "chef-cli/cli"
require "chef-cli/command/install"

jobs = JSON.parse(File.read(ARGV[0]))
out = $stdout.dup
jobs.each do |job|
  result = { "dir" => job["dir"], "ok" => false, "error" => nil }
  begin
    Dir.chdir(job["dir"]) do
      File.delete("Policyfile.lock.json") if File.exist?("Policyfile.lock.json")
      cmd = ChefCLI::Command::Install.new
      ui = ChefCLI::UI.new(out: StringIO.new, err: StringIO.new)
      cmd.ui = ui
      code = cmd.run([job["policyfile"]])
      if code == 0 && File.exist?("Policyfile.lock.json")
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
