<?xml version="1.0" encoding="UTF-8"?>
<!-- urlset's stylesheet for sitemaps and sitemap indexes (XSLT 1.0), for browsers that still
     apply XSLT: a table of the entries. Crawlers ignore it. Publish it beside the set with
     the build option "stylesheet" (or urlset.writing.stylesheet.publish_stylesheet). -->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    exclude-result-prefixes="s image video news xhtml">
  <xsl:output method="html" encoding="UTF-8" indent="no" doctype-system="about:legacy-compat"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="robots" content="noindex"/>
        <title>
          <xsl:choose>
            <xsl:when test="s:sitemapindex">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <style>
          body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b}
          h1{font-size:1.3em;margin:0 0 .3em}a{color:#0645ad}
          table{border-collapse:collapse;width:100%;margin:.8em 0}
          th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
          th{background:#f3f3f3}td.n{text-align:right;color:#666}td.loc{word-break:break-all}
        </style>
      </head>
      <body>
        <xsl:apply-templates select="s:sitemapindex | s:urlset"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="s:sitemapindex">
    <h1>Sitemap index</h1>
    <p id="summary"><xsl:value-of select="count(s:sitemap)"/> sitemaps</p>
    <table id="entries">
      <thead><tr><th>#</th><th>sitemap</th><th>lastmod</th></tr></thead>
      <tbody>
        <xsl:for-each select="s:sitemap">
          <tr>
            <td class="n"><xsl:value-of select="position()"/></td>
            <td class="loc"><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
            <td><xsl:value-of select="s:lastmod"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <xsl:template match="s:urlset">
    <h1>Sitemap</h1>
    <p id="summary"><xsl:value-of select="count(s:url)"/> URLs</p>
    <table id="entries">
      <thead>
        <tr>
          <th>#</th><th>loc</th><th>lastmod</th><th>changefreq</th><th>priority</th>
          <th>images</th><th>videos</th><th>news</th><th>hreflang</th>
        </tr>
      </thead>
      <tbody>
        <xsl:for-each select="s:url">
          <tr>
            <td class="n"><xsl:value-of select="position()"/></td>
            <td class="loc"><a href="{s:loc}" rel="nofollow"><xsl:value-of select="s:loc"/></a></td>
            <td><xsl:value-of select="s:lastmod"/></td>
            <td><xsl:value-of select="s:changefreq"/></td>
            <td><xsl:value-of select="s:priority"/></td>
            <td><xsl:if test="image:image"><xsl:value-of select="count(image:image)"/></xsl:if></td>
            <td><xsl:if test="video:video"><xsl:value-of select="count(video:video)"/></xsl:if></td>
            <td><xsl:if test="news:news"><xsl:value-of select="count(news:news)"/></xsl:if></td>
            <td>
              <xsl:for-each select="xhtml:link[@rel='alternate']">
                <a href="{@href}" rel="nofollow"><xsl:value-of select="@hreflang"/></a>
                <xsl:text> </xsl:text>
              </xsl:for-each>
            </td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>
</xsl:stylesheet>
