-- session.lua drives xpkg-lsp from Neovim's built-in LSP client (Neovim
-- 0.7 and later), headless, through the steps of TestNeovim, and writes
-- what the editor saw to $OUT, one JSON object a line. Run by
--   nvim --headless --clean -n -c "luafile session.lua"
-- with XPKG_LSP (the server's command, split on spaces), CORPUS (a
-- Configuration's directory), FIXTURE (lintcmd/lsp/testdata/config),
-- EXPECT (the number of diagnostics xpkg-lint gives on CORPUS) and OUT.
local out = {}
local function emit(t) table.insert(out, vim.fn.json_encode(t)) end
local function finish()
  vim.fn.writefile(out, os.getenv('OUT'))
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  local cmd = vim.split(os.getenv('XPKG_LSP'), ' ', { trimempty = true })
  local corpus, fixture = os.getenv('CORPUS'), os.getenv('FIXTURE')
  local expect = tonumber(os.getenv('EXPECT'))
  local clients = {}
  -- open edits a file and attaches it to the server of its package root.
  local function open(root, file)
    vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. file))
    local buf = vim.api.nvim_get_current_buf()
    local config = { name = 'xpkg-lsp', cmd = cmd, root_dir = root, init_options = { xpkg = {} },
      flags = { debounce_text_changes = 0 } }
    if vim.lsp.start then
      clients[root] = vim.lsp.start(config)
    else
      clients[root] = clients[root] or vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(buf, clients[root])
    end
    return buf, vim.lsp.get_client_by_id(clients[root])
  end
  local function code(d)
    if d.user_data and d.user_data.lsp and d.user_data.lsp.code then return d.user_data.lsp.code end
    return d.code
  end
  local function pos(buf, line, char)
    return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = char } }
  end
  local function lineOf(buf, s)
    for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l:find(s, 1, true) then return i - 1 end
    end
    return -1
  end

  -- 1. Open a corpus Configuration.
  local meta, client = open(corpus, 'crossplane.yaml')
  local comp = open(corpus, 'apis/gotpl/composition.yaml')
  -- 2. Its diagnostics, for every file of the package.
  vim.wait(60000, function() return #vim.diagnostic.get() >= expect end, 50)
  for _, d in ipairs(vim.diagnostic.get()) do
    emit({ step = 'diagnostic', file = vim.api.nvim_buf_get_name(d.bufnr), line = d.lnum + 1, col = d.col + 1, code = code(d) })
  end
  -- 3. A quick fix, and its diagnostic gone.
  local res = client.request_sync('textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(meta) },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 1 } },
    context = { diagnostics = {} },
  }, 20000, meta)
  local applied = nil
  for _, a in ipairs((res and res.result) or {}) do
    if a.title:find('set apiVersion', 1, true) then
      vim.lsp.util.apply_workspace_edit(a.edit, client.offset_encoding or 'utf-16')
      applied = a.title
    end
  end
  local gone = vim.wait(60000, function()
    for _, d in ipairs(vim.diagnostic.get(meta)) do
      if code(d) == 'XP103' then return false end
    end
    return true
  end, 50)
  emit({ step = 'fix', title = applied, gone = gone, line1 = vim.api.nvim_buf_get_lines(meta, 0, 1, false)[1] })
  -- 4. Hover a Composition field.
  res = client.request_sync('textDocument/hover', pos(comp, lineOf(comp, 'compositeTypeRef:'), 4), 20000, comp)
  emit({ step = 'hover', value = res and res.result and res.result.contents.value or vim.inspect(res) })
  -- 6. From compositeTypeRef to the XRD.
  res = client.request_sync('textDocument/definition', pos(comp, lineOf(comp, 'kind: XNetwork'), 6), 20000, comp)
  local loc = res and res.result and res.result[1]
  emit({ step = 'definition', uri = loc and loc.uri, line = loc and loc.range.start.line })
  -- 5. Complete a field of a composed resource (the fixture's, whose
  -- composed resources are YAML rather than templates).
  local fcomp, fclient = open(fixture, 'apis/network/composition.yaml')
  local l = lineOf(fcomp, 'cidrBlock:')
  vim.api.nvim_buf_set_lines(fcomp, l + 1, l + 1, false, { string.rep(' ', 16) })
  -- The client sends the edit asynchronously: ask until the server has it
  -- (before it, the line is the file's last, blank one, at the root).
  local labels = {}
  for _ = 1, 100 do
    vim.wait(100)
    res = fclient.request_sync('textDocument/completion', pos(fcomp, l + 1, 16), 20000, fcomp)
    if not res or res.err then emit({ step = 'completion-error', error = vim.inspect(res) }) break end
    local items = res.result and (res.result.items or res.result) or {}
    for _, it in ipairs(items) do table.insert(labels, it.label) end
    if #labels > 0 then break end
  end
  emit({ step = 'completion', labels = labels })
end)
if not ok then emit({ step = 'error', error = tostring(err) }) end
finish()
