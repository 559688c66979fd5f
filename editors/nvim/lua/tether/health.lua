-- :checkhealth tether
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  start('tether')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    ok('Neovim ' .. version)
  elseif vim.fn.has('nvim-0.7') == 1 then
    warn('Neovim ' .. version .. ': supported through the older LSP API (see the README for what differs)')
  else
    error('Neovim ' .. version .. ' is too old: 0.7 or later is needed')
  end

  local tether = require('tether')
  local cmd = tether.config.cmd or { 'tether', 'lsp' }
  if vim.fn.executable(cmd[1]) == 1 then
    ok('server command found: ' .. table.concat(cmd, ' '))
  else
    error(cmd[1] .. ' is not executable: install the tether package or set cmd in setup()')
  end

  if vim.lsp.commands['tether.showLearnings'] then
    ok('setup() has run')
  else
    warn("setup() has not run: add require('tether').setup({}) to your config")
  end

  -- :checkhealth shows its report in a buffer of its own; the file being edited is the alternate.
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr):match('^health:') then
    local alt = vim.fn.bufnr('#')
    bufnr = alt > 0 and alt or bufnr
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = tether.git_root(name)
  if root then
    ok('current buffer is in the git repository ' .. root)
    local client = tether.client(bufnr)
    if client then
      ok('language server attached (client ' .. client.id .. ')')
    else
      warn('no tether language server attached to this buffer')
    end
    if vim.fn.isdirectory(root .. '/.git/tether') == 1 then
      ok('the repository has a memory (.git/tether)')
    else
      info('no memory yet in this repository: the first learning creates it')
    end
  else
    info('current buffer is not inside a git repository')
  end
end

return M
