-- Drives `git gloss lsp` from Neovim 0.7 (Debian's), headless, as a person
-- would: open a file, hover, type ten lines above without saving, hover
-- again, flag the record from a shell, hover once more. What each hover
-- showed goes to LSPTEST_OUT as JSON for the Go test to judge.
local env = vim.env
local out = { hovers = {}, errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, env.LSPTEST_OUT)
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(env.LSPTEST_FILE))
  local id = vim.lsp.start_client({
    name = "gloss",
    cmd = { env.LSPTEST_BIN, "lsp" },
    root_dir = env.LSPTEST_REPO,
  })
  assert(id, "start_client failed")
  vim.lsp.buf_attach_client(0, id)

  -- hover returns the markdown of a hover at a 0-based line ("" when the
  -- server answers none); the first calls fail until initialize returns.
  local function hover(line)
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(0) },
      position = { line = line, character = 2 },
    }
    local text
    vim.wait(20000, function()
      local res = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 5000)
      if not res then
        return false
      end
      for _, r in pairs(res) do
        if r.error then
          table.insert(out.errors, r.error.message)
          return false
        end
        text = (r.result and r.result.contents and r.result.contents.value) or ""
        return true
      end
      return false
    end, 50)
    return text
  end

  out.hovers.first = hover(6)

  -- Ten unsaved lines above Total: the statement hovered moves to line 17.
  local ten = {}
  for i = 1, 10 do
    ten[i] = "// typed but not saved " .. i
  end
  vim.api.nvim_buf_set_lines(0, 2, 2, false, ten)
  out.modified = vim.bo.modified
  out.hovers.shifted = hover(16)

  -- Flag the record from a shell; the server must notice by itself.
  out.flag = vim.fn.system({ "git", "-C", env.LSPTEST_REPO, "gloss", "flag", env.LSPTEST_RECORD, "--reason", "no longer holds" })
  local after
  vim.wait(20000, function()
    after = hover(16)
    return after ~= nil and not string.find(after, env.LSPTEST_CONSTRAINT, 1, true)
  end, 200)
  out.hovers.after_flag = after
end)
if not ok then
  table.insert(out.errors, tostring(err))
end
finish()
