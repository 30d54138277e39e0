<?xml version="1.0" encoding="UTF-8"?>
<!-- urlset's stylesheet for sitemaps and sitemap indexes (XSLT 1.0), for browsers that still
     apply XSLT: a table of the entries, in the look of urlset's other pages (its style element
     is filled with writing/page_style.py's stylesheet when published). Crawlers ignore it.
     Publish it beside the set with the build option "stylesheet" (or
     urlset.writing.stylesheet.publish_stylesheet). -->
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
        <style>/* urlset's page stylesheet (writing/page_style.py) */</style>
      </head>
      <body>
        <xsl:apply-templates select="s:sitemapindex | s:urlset"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="s:sitemapindex">
    <xsl:variable name="count">
      <xsl:call-template name="count">
        <xsl:with-param name="n" select="count(s:sitemap)"/>
        <xsl:with-param name="noun">sitemap</xsl:with-param>
      </xsl:call-template>
    </xsl:variable>
    <header><h1>Sitemap index</h1><p><xsl:value-of select="$count"/></p></header>
    <main><section>
      <p id="summary"><xsl:value-of select="$count"/></p>
      <div class="scroll" role="region" tabindex="0" aria-label="entries">
        <table id="entries">
          <thead>
            <tr><th scope="col" class="num">#</th><th scope="col">sitemap</th><th scope="col">lastmod</th></tr>
          </thead>
          <tbody>
            <xsl:for-each select="s:sitemap">
              <tr>
                <td class="num"><xsl:value-of select="format-number(position(), '#,##0')"/></td>
                <td class="url"><a href="{s:loc}"><xsl:value-of select="s:loc"/></a></td>
                <td><xsl:value-of select="s:lastmod"/></td>
              </tr>
            </xsl:for-each>
          </tbody>
        </table>
      </div>
    </section></main>
  </xsl:template>

  <xsl:template name="count">
    <xsl:param name="n"/>
    <xsl:param name="noun"/>
    <xsl:value-of select="format-number($n, '#,##0')"/>
    <xsl:text> </xsl:text>
    <xsl:value-of select="$noun"/>
    <xsl:if test="$n != 1">s</xsl:if>
  </xsl:template>

  <xsl:template match="s:urlset">
    <xsl:variable name="count">
      <xsl:call-template name="count">
        <xsl:with-param name="n" select="count(s:url)"/>
        <xsl:with-param name="noun">URL</xsl:with-param>
      </xsl:call-template>
    </xsl:variable>
    <header><h1>Sitemap</h1><p><xsl:value-of select="$count"/></p></header>
    <main><section>
    <p id="summary"><xsl:value-of select="$count"/></p>
    <div class="scroll" role="region" tabindex="0" aria-label="entries">
    <table id="entries">
      <thead>
        <tr>
          <th scope="col" class="num">#</th><th scope="col">loc</th><th scope="col">lastmod</th>
          <th scope="col">changefreq</th><th scope="col" class="num">priority</th>
          <th scope="col" class="num">images</th><th scope="col" class="num">videos</th>
          <th scope="col" class="num">news</th><th scope="col">hreflang</th>
        </tr>
      </thead>
      <tbody>
        <xsl:for-each select="s:url">
          <tr>
            <td class="num"><xsl:value-of select="format-number(position(), '#,##0')"/></td>
            <td class="url"><a href="{s:loc}" rel="nofollow"><xsl:value-of select="s:loc"/></a></td>
            <td><xsl:value-of select="s:lastmod"/></td>
            <td><xsl:value-of select="s:changefreq"/></td>
            <td class="num"><xsl:value-of select="s:priority"/></td>
            <td class="num"><xsl:if test="image:image"><xsl:value-of select="count(image:image)"/></xsl:if></td>
            <td class="num"><xsl:if test="video:video"><xsl:value-of select="count(video:video)"/></xsl:if></td>
            <td class="num"><xsl:if test="news:news"><xsl:value-of select="count(news:news)"/></xsl:if></td>
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
    </div>
    </section></main>
  </xsl:template>
</xsl:stylesheet>
